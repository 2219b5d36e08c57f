export type TestStatus = 'passed' | 'failed' | 'skipped'

export interface TestCase {
  /** The runner's full name for the test (suite path, module path or package and name). */
  id: string
  status: TestStatus
  /** The file the runner named for the test, when it named one. */
  file?: string
  /** The failure as the runner reported it, normalised (no timings, temporary paths, addresses). */
  message?: string
}

export type Runner =
  'unittest' | 'pytest' | 'jest' | 'vitest' | 'mocha' | 'tap' | 'go' | 'go-json' | 'cargo' | 'junit'

export interface TestReport {
  runner: Runner
  tests: TestCase[]
}

/** The last part of a test's id: what an issue names ("test_add", "adds", "TestAdd"). */
export function leafName(id: string): string {
  const parts = id.split(/::|\s›\s|\s>\s|\/|\./)
  return (parts[parts.length - 1] ?? id).trim()
}
