/**
 * Which test framework a validation command runs, so a reproduction can be written in it. Read
 * from the command as written, and for `npm test` (and yarn/pnpm) from package.json's script.
 */
export type TestFramework =
  | 'unittest'
  | 'pytest'
  | 'node-test'
  | 'jest'
  | 'vitest'
  | 'mocha'
  | 'go'
  | 'cargo'
  | 'maven'
  | 'gradle'

const RULES: Array<[RegExp, TestFramework]> = [
  [/(^|[\s;&|(])(python3?|py)\s+-m\s+unittest\b/, 'unittest'],
  [/(^|[\s;&|(])((python3?|py)\s+-m\s+)?pytest\b/, 'pytest'],
  [/(^|[\s;&|(])node\s+(--[\w-]+(=\S+)?\s+)*--test\b/, 'node-test'],
  [/(^|[\s;&|(/])vitest\b/, 'vitest'],
  [/(^|[\s;&|(/])jest\b/, 'jest'],
  [/(^|[\s;&|(/])mocha\b/, 'mocha'],
  [/(^|[\s;&|(])go\s+test\b/, 'go'],
  [/(^|[\s;&|(])cargo\s+(\+\S+\s+)?(test|nextest)\b/, 'cargo'],
  [/(^|[\s;&|(/])(mvn|mvnw)\b[^;&|]*\b(test|verify)\b/, 'maven'],
  [/(^|[\s;&|(/])(gradle|gradlew)\b[^;&|]*\b(test|check)\b/, 'gradle']
]

const PACKAGE_SCRIPT = /(^|[\s;&|(])(npm|yarn|pnpm)\s+(run\s+)?(test|t)\b/

/**
 * The framework a command runs; `scripts` are package.json's scripts (for `npm test`). Nested
 * scripts (`npm test` → `npm run unit`) are followed a few steps, never in a loop.
 */
export function testFramework(
  command: string,
  scripts: Readonly<Record<string, unknown>> = {},
  depth = 0
): TestFramework | undefined {
  for (const [pattern, framework] of RULES) if (pattern.test(command)) return framework
  if (depth > 3) return undefined
  const script = PACKAGE_SCRIPT.exec(command)
  if (script) {
    const body = scripts[script[4] === 't' ? 'test' : script[4]!]
    if (typeof body === 'string') return testFramework(body, scripts, depth + 1)
  }
  const named = /(^|[\s;&|(])(npm|yarn|pnpm)\s+run\s+([\w:-]+)/.exec(command)
  const body = named ? scripts[named[3]!] : undefined
  return typeof body === 'string' ? testFramework(body, scripts, depth + 1) : undefined
}

/** package.json's scripts, or none when the text is not a package manifest. */
export function packageScripts(packageJson: string | null | undefined): Record<string, unknown> {
  if (!packageJson) return {}
  try {
    const parsed = JSON.parse(packageJson) as { scripts?: unknown }
    return parsed.scripts && typeof parsed.scripts === 'object'
      ? (parsed.scripts as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** How a person names each framework in a prompt or a summary. */
export const FRAMEWORK_NAMES: Record<TestFramework, string> = {
  unittest: 'Python unittest',
  pytest: 'pytest',
  'node-test': "Node's built-in test runner (node:test with node:assert)",
  jest: 'Jest',
  vitest: 'Vitest',
  mocha: 'Mocha',
  go: 'Go testing (go test)',
  cargo: 'Rust tests (cargo test)',
  maven: 'JUnit (Maven)',
  gradle: 'JUnit (Gradle)'
}
