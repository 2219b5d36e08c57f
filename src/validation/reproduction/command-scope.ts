import type { TestFramework } from './framework.js'

/**
 * What a test command runs, read from its own arguments: the folders and files it names (those
 * the repository tracks), so a reproduction lands where the command runs it. `undefined` when
 * the command names none (it runs the whole suite) or is not one Patchsmith reads.
 */
interface CommandScope {
  /** Folders the command runs the tests under (Go: the package itself, or all below with `/...`). */
  folders: Array<{ path: string; recursive: boolean }>
  files: string[]
  /** Where a test file's path goes to be run too (the end of the runner's arguments). */
  insertAt: number
}

// The runner's own word: its arguments follow it, up to the end of its command.
const RUNNER: Partial<Record<TestFramework, RegExp>> = {
  pytest: /(^|[\s;&|(])((python3?|py)\s+-m\s+)?pytest\b/,
  'node-test': /(^|[\s;&|(])node\s+(--[\w-]+(=\S+)?\s+)*--test\b/,
  vitest: /(^|[\s;&|(/])vitest(\s+run)?\b/,
  jest: /(^|[\s;&|(/])jest\b/,
  mocha: /(^|[\s;&|(/])mocha\b/,
  go: /(^|[\s;&|(])go\s+test\b/
}

// Options whose value is the next word (a pattern, a plugin, a folder left out): never a scope.
const TAKES_VALUE = new Set([
  '-k',
  '-m',
  '-p',
  '-c',
  '-o',
  '-n',
  '-r',
  '-t',
  '--ignore',
  '--ignore-glob',
  '--deselect',
  '--rootdir',
  '--confcutdir',
  '--basetemp',
  '--timeout',
  '--reporter',
  '--config',
  '--testNamePattern',
  '--grep',
  '--run',
  '--tags',
  '-run',
  '-timeout',
  '-count',
  '-tags'
])

export function commandScope(
  framework: TestFramework,
  command: string,
  tracked: readonly string[]
): CommandScope | undefined {
  const runner = RUNNER[framework]?.exec(command)
  if (!runner) return undefined
  const start = runner.index + runner[0].length
  const end = command.slice(start).search(/[;&|<>]/)
  const insertAt = (end < 0 ? command.length : start + end) - trailingSpace(command, start, end)
  const words = command.slice(start, insertAt).trim().split(/\s+/).filter(Boolean)
  const scope: CommandScope = { folders: [], files: [], insertAt }
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!
    if (word.startsWith('-')) {
      if (TAKES_VALUE.has(word)) k++
      continue
    }
    let path = word.replace(/^(['"])(.*)\1$/, '$2').split('::')[0]!
    const recursive = framework !== 'go' || /(^|\/)\.\.\.$/.test(path)
    path = path
      .replace(/(^|\/)\.\.\.$/, '')
      .replace(/^\.\//, '')
      .replace(/\/+$/, '')
    if (path === '' || path === '.') return undefined
    if (tracked.includes(path)) scope.files.push(path)
    else if (tracked.some((file) => file.startsWith(`${path}/`)))
      scope.folders.push({ path, recursive })
  }
  return scope.folders.length + scope.files.length > 0 ? scope : undefined
}

/** Whether the command, as written, runs a test file at `path`. */
export function runsFile(scope: CommandScope | undefined, path: string): boolean {
  if (!scope) return true
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''
  return (
    scope.files.includes(path) ||
    scope.folders.some((f) => (f.recursive ? path.startsWith(`${f.path}/`) : folder === f.path))
  )
}

/**
 * The command with the new test's path among the runner's arguments (Go: its package,
 * `./dir`), so it runs the files it named and the new test.
 */
export function withTestPath(
  framework: TestFramework,
  command: string,
  scope: CommandScope,
  path: string
): string {
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.'
  const argument = framework === 'go' ? `./${folder === '.' ? '' : folder}` : path
  const quoted = /^[\w./@+-]+$/.test(argument) ? argument : `'${argument.replace(/'/g, `'\\''`)}'`
  return `${command.slice(0, scope.insertAt)} ${quoted}${command.slice(scope.insertAt)}`
}

function trailingSpace(command: string, start: number, end: number): number {
  const before = command.slice(start, end < 0 ? command.length : start + end)
  return before.length - before.trimEnd().length
}
