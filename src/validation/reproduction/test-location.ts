import { commandScope, runsFile, withTestPath } from './command-scope.js'
import type { TestFramework } from './framework.js'

/** Where a reproduction goes: a new file beside the repository's own tests, named as they are. */
interface TestLocation {
  path: string
  /** The existing test file it is modelled on (its folder and name), when the repository has one. */
  example?: string
  /**
   * The test command that runs it, when one was given: as written when its own paths take the
   * new file in, else with the new file's path among its arguments (a command that names files).
   */
  command?: string
}

const JS = String.raw`[cm]?[jt]sx?`
const TEST_FILES: Record<TestFramework, RegExp> = {
  // unittest's discover default is test*.py; pytest's test_*.py and *_test.py.
  unittest: /(^|\/)test[^/]*\.py$/,
  pytest: /(^|\/)(test_[^/]*|[^/]*_test)\.py$/,
  'node-test': new RegExp(
    String.raw`((^|/)[^/]+[.\-_](test|spec)\.${JS}$|(^|/)test-[^/]+\.${JS}$|(^|/)tests?/[^/]+\.${JS}$)`
  ),
  jest: new RegExp(String.raw`((^|/)[^/]+\.(test|spec)\.${JS}$|(^|/)__tests__/[^/]+\.${JS}$)`),
  vitest: new RegExp(String.raw`(^|/)[^/]+\.(test|spec)\.${JS}$`),
  mocha: new RegExp(String.raw`((^|/)[^/]+\.(test|spec)\.${JS}$|(^|/)tests?/[^/]+\.${JS}$)`),
  go: /_test\.go$/,
  cargo: /(^|\/)tests\/[^/]+\.rs$/,
  maven: /(^|\/)src\/test\/(java|kotlin)\/.+(Test|Tests|TestCase|IT)\.(java|kt)$/,
  gradle: /(^|\/)src\/test\/(java|kotlin)\/.+(Test|Tests|TestCase|IT)\.(java|kt)$/
}

const DEFAULTS: Record<TestFramework, (n: number) => string> = {
  unittest: (n) => `test_issue_${n}.py`,
  pytest: (n) => `test_issue_${n}.py`,
  'node-test': (n) => `test/issue-${n}.test.js`,
  jest: (n) => `issue-${n}.test.js`,
  vitest: (n) => `issue-${n}.test.js`,
  mocha: (n) => `test/issue-${n}.js`,
  go: (n) => `issue_${n}_test.go`,
  cargo: (n) => `tests/issue_${n}.rs`,
  maven: (n) => `src/test/java/Issue${n}Test.java`,
  gradle: (n) => `src/test/java/Issue${n}Test.java`
}

const IGNORED = /(^|\/)(node_modules|vendor|\.venv|venv|dist|build|target|third_party)\//

/** Whether a path is one of the framework's test files (a place a reproduction may be written). */
export function isTestFile(framework: TestFramework, path: string): boolean {
  return TEST_FILES[framework].test(path) && !IGNORED.test(path)
}

/**
 * The new test file's path: in the folder of the existing test closest to the planned files,
 * named after it with the issue in place of its subject ("test_calc.py" → "test_issue_7.py",
 * "calc.test.js" → "issue-7.test.js", "CalcTest.java" → "Issue7Test.java"); a framework's
 * usual place when the repository has no test yet. Never an existing file. Given the test
 * command, among the tests it runs: a command that names folders (`pytest tests/unit`) gets
 * the file in one of them and runs as written; one that names files only
 * (`pytest tests/test_utils.py`) gets the new file's path added (Go: its package).
 */
export function reproductionLocation(
  framework: TestFramework,
  tracked: readonly string[],
  planned: readonly string[],
  issueNumber: number,
  command?: string
): TestLocation {
  const tests = tracked.filter((path) => isTestFile(framework, path))
  const scope = command === undefined ? undefined : commandScope(framework, command, tracked)
  // Go's test belongs to the planned package, whatever the command names.
  const ran = framework === 'go' ? [] : tests.filter((path) => runsFile(scope, path))
  const example = closest(ran.length > 0 ? ran : tests, planned)
  const taken = new Set(tracked)
  const folder = framework === 'go' ? undefined : scope?.folders[0]?.path
  let path = example
    ? join(dirname(example), renamed(basename(example), issueNumber))
    : folder !== undefined
      ? join(folder, basename(defaultPath(framework, planned, issueNumber)))
      : defaultPath(framework, planned, issueNumber)
  for (let k = 2; taken.has(path); k++) path = path.replace(/(\.[\w]+)$/, `_${k}$1`)
  const location: TestLocation = example ? { path, example } : { path }
  if (command === undefined) return location
  const runs = runsFile(scope, path) || !scope
  return { ...location, command: runs ? command : withTestPath(framework, command, scope, path) }
}

function defaultPath(framework: TestFramework, planned: readonly string[], n: number): string {
  const name = DEFAULTS[framework](n)
  if (framework === 'go') {
    const goFile = planned.find((p) => p.endsWith('.go'))
    return goFile ? join(dirname(goFile), name) : name
  }
  if (framework === 'maven' || framework === 'gradle') {
    const source = planned
      .map((p) => /^(.*\/)?src\/main\/java\/(.+)\/[^/]+\.java$/.exec(p))
      .find(Boolean)
    if (source) return `${source[1] ?? ''}src/test/java/${source[2]}/Issue${n}Test.java`
  }
  return name
}

/** The stem swapped for the issue, keeping the file's test marker and case style. */
function renamed(name: string, n: number): string {
  const java = /^(.*?)(Tests?|TestCase|IT)(\.\w+)$/.exec(name)
  if (java && /^[A-Z]/.test(name)) return `Issue${n}${java[2]}${java[3]}`
  const prefix = /^(test[_-]?)(.*?)(\.[\w.]+)$/.exec(name)
  if (prefix && prefix[2]) return `${prefix[1]}issue${sep(prefix[1]!)}${n}${prefix[3]}`
  const suffix = /^(.+?)([._-](test|spec))(\.[\w]+)$/i.exec(name)
  if (suffix) {
    const s = suffix[2]![0] === '.' ? '-' : suffix[2]![0]!
    return `issue${s}${n}${suffix[2]}${suffix[4]}`
  }
  const ext = /(\.[\w]+)$/.exec(name)?.[1] ?? ''
  const snake = /_/.test(name) || ext === '.py' || ext === '.rs' || ext === '.go'
  return `issue${snake ? '_' : '-'}${n}${ext}`
}

function sep(prefix: string): string {
  return prefix.endsWith('-') ? '-' : '_'
}

/** The test whose folder shares the most with a planned file's; ties to the shortest path. */
function closest(tests: readonly string[], planned: readonly string[]): string | undefined {
  let best: string | undefined
  let bestScore = -1
  for (const test of tests) {
    const stem = basename(test).replace(/[._-]?(test|spec)s?|^test_?|\.\w+$/gi, '')
    const score = Math.max(
      0,
      ...planned.map((p) => {
        const shared = commonFolders(dirname(test), dirname(p))
        const sameSubject = stem && basename(p).replace(/\.\w+$/, '') === stem ? 100 : 0
        return shared + sameSubject
      })
    )
    if (score > bestScore || (score === bestScore && best && test.length < best.length)) {
      best = test
      bestScore = score
    }
  }
  return best
}

function commonFolders(a: string, b: string): number {
  const x = a ? a.split('/') : []
  const y = b ? b.split('/') : []
  let k = 0
  while (k < x.length && k < y.length && x[k] === y[k]) k++
  return k
}

function dirname(path: string): string {
  const at = path.lastIndexOf('/')
  return at < 0 ? '' : path.slice(0, at)
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

function join(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name
}
