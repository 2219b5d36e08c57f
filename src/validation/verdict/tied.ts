import { leafName, normaliseOutput, type TestCase } from '../test-report/index.js'

type Failure = Pick<TestCase, 'id' | 'file' | 'message'>

/**
 * Whether the issue or plan text names a failure: the test itself (its id, its name as a word
 * or in prose, a parameter case of it, a line of its failure text the issue quotes), its test
 * function (for a parametrized test), or its test file.
 */
export function namedBy(text: string, failure: Failure): boolean {
  return text !== '' && namedLevel(new IssueText(text), failure) !== 'none'
}

/**
 * The failing tests the issue names, the most precisely named ones only: an issue that names a
 * case of a parametrized test (`length includes suffix`) names that case, not the function's
 * other failing cases; one that names a test names it, not every failing test of its file.
 */
export function namedTests<T extends Failure>(text: string, failures: readonly T[]): T[] {
  if (!text) return []
  const issue = new IssueText(text)
  const levels = failures.map((failure) => ({ failure, rank: RANK[namedLevel(issue, failure)] }))
  const bestOf = (key: (failure: Failure) => string) => {
    const best = new Map<string, number>()
    for (const { failure, rank } of levels)
      best.set(key(failure), Math.max(rank, best.get(key(failure)) ?? 0))
    return (failure: Failure) => best.get(key(failure)) ?? 0
  }
  const inFile = bestOf(fileKey)
  const inFunction = bestOf(functionKey)
  return levels
    .filter(({ failure, rank }) => {
      if (rank === RANK.file) return inFile(failure) === RANK.file
      if (rank === RANK.function) return inFunction(failure) === RANK.function
      return rank === RANK.test
    })
    .map((l) => l.failure)
}

// test_add_negative, add_negative_test, TestAddNegative: a test's identifier in the issue.
const TEST_IDENTIFIER = /\btest_\w+|\b\w+_test\b|\bTest[A-Z0-9]\w*/g

type Level = 'none' | 'file' | 'function' | 'test'
const RANK: Record<Level, number> = { none: 0, file: 1, function: 2, test: 3 }

function namedLevel(issue: IssueText, failure: Failure): Level {
  const { id } = failure
  const { name, cases } = testName(id)
  if (id.length >= 3 && issue.hasWord(id)) return 'test'
  if (cases === undefined ? issue.namesTest(name) : issue.namesCase(name, cases)) return 'test'
  if (issue.quotesFailure(failure.message)) return 'test'
  if (cases !== undefined && issue.namesTest(name)) return 'function'
  if (fileNames(failure.file ?? id).some((file) => file.length >= 3 && issue.hasWord(file)))
    return 'file'
  return 'none'
}

/**
 * The issue's text, and the test names it gives in words: `test_length_includes_suffix` (a
 * test's identifier: "length includes suffix"), a quoted `length includes suffix`, or three
 * words or more in its prose. A code identifier (`short_help`) is no test's name in words.
 */
class IssueText {
  private readonly lower: string
  private readonly normalised: string
  private readonly longQuotes: string[]
  private readonly phrases: Set<string>
  private readonly prose: string

  constructor(text: string) {
    this.lower = text.toLowerCase()
    this.normalised = normaliseOutput(text).toLowerCase()
    this.longQuotes = quotes(this.normalised, 12)
    const testIds = [...text.matchAll(TEST_IDENTIFIER)].map((m) => withoutMarker(m[0]))
    const quoted = quotes(text, 3).filter((q) => !/[_.()[\]/\\:]/.test(q))
    this.phrases = new Set([...testIds, ...quoted.map(words)].filter(Boolean))
    this.prose = ` ${words(text.replace(/\S*_\S*/g, ' '))} `
  }

  hasWord(name: string): boolean {
    return asWord(this.lower, name.toLowerCase())
  }

  /** A test by its name as written, or in words: `test_returns_none_for_empty` is "returns none for empty". */
  namesTest(name: string): boolean {
    return (name.length >= 3 && this.hasWord(name)) || this.namesPhrase(withoutMarker(name))
  }

  /**
   * A case of a parametrized test: `name[params]`, or one of its parameter ids in words (pytest
   * joins stacked ones with "-": `no-wrap mark-length includes suffix`).
   */
  namesCase(name: string, cases: string): boolean {
    if (this.lower.includes(`${name}[${cases}]`.toLowerCase())) return true
    const parts = cases.split('-')
    // Runs of up to four parts: an id is a few parameters, never worth a quadratic walk.
    for (let from = 0; from < parts.length; from++)
      for (let to = from + 1; to <= Math.min(parts.length, from + 4); to++)
        if (this.namesPhrase(words(parts.slice(from, to).join('-')))) return true
    return false
  }

  private namesPhrase(phrase: string): boolean {
    if (phrase.length < 3) return false
    if (this.phrases.has(phrase)) return true
    return phrase.split(' ').length >= 3 && this.prose.includes(` ${phrase} `)
  }

  /** A line of the failure's text the issue holds, or a span the issue quotes its text holds. */
  quotesFailure(message: string | undefined): boolean {
    const text = (message ?? '').toLowerCase()
    if (!text) return false
    const lines = text.split('\n').map((line) => line.trim())
    return (
      lines.some((line) => line.length >= 12 && this.normalised.includes(line)) ||
      this.longQuotes.some((q) => text.includes(q))
    )
  }
}

/**
 * A test's name and, for a parametrized one, its parameter ids: pytest's
 * `tests/test_x.py::TestY::test_z[a-b]`, Go's `TestZ/a_b`; else the id's last part
 * (unittest's `test_x.TestY.test_z`, Jest's `suite › name`).
 */
function testName(id: string): { name: string; cases?: string } {
  const pytest = /::([^:[\]]+)\[(.*)\]$/s.exec(id)
  if (pytest) return { name: pytest[1]!, cases: pytest[2]! }
  const go = /^(Test\w*)\/(.+)$/.exec(id)
  if (go) return { name: go[1]!, cases: go[2]! }
  return { name: id.includes('::') ? id.slice(id.lastIndexOf('::') + 2) : leafName(id) }
}

/** What a failure is grouped by: its file (or unittest module), and its test function in it. */
function fileKey(failure: Failure): string {
  return failure.file ?? fileNames(failure.id)[0] ?? failure.id
}

function functionKey(failure: Failure): string {
  return `${fileKey(failure)}\0${testName(failure.id).name}`
}

/** "test_returns_none", "TestReturnsNone", "returns_none_test" → "returns none". */
function withoutMarker(name: string): string {
  return words(name)
    .replace(/^test /, '')
    .replace(/ test$/, '')
}

/** Lower-case words split at anything else and at camelCase: "No-wrap mark" → "no wrap mark". */
function words(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
}

/** What the issue quotes: `code`, "text" and 'text' spans, and the lines of fenced blocks. */
function quotes(text: string, atLeast: number): string[] {
  const spans = [...text.matchAll(/`([^`\n]+)`|"([^"\n]+)"|'([^'\n]+)'/g)].map(
    (m) => (m[1] ?? m[2] ?? m[3])!
  )
  const fenced = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'))
  return [...spans, ...fenced].map((q) => q.trim()).filter((q) => q.length >= atLeast)
}

const SOURCE_FILE = /\.(py|[cm]?[jt]sx?|go|rs|java|kt|rb|php|cs)$/

/** "tests/test_calc.py", "test_calc.py" and "test_calc" from a file or a dotted/colon id. */
function fileNames(where: string): string[] {
  const path = where.split('::')[0]!
  const base = path.split('/').pop() ?? path
  if (where.includes('/') || where.includes('::') || SOURCE_FILE.test(base)) {
    const stem = base.replace(/\.\w+$/, '').replace(/\.(test|spec)$/, '')
    return [path, base, ...(stem.length >= 5 ? [stem] : [])]
  }
  // unittest's "tests.test_calc.CalcTest.test_add": the module is the file.
  const parts = where.split('.')
  if (parts.length < 2 || !parts.every((part) => /^\w+$/.test(part))) return []
  const module = parts.slice(0, Math.max(1, parts.length - 2)).join('.')
  const last = module.split('.').pop()!
  return [module, `${module.replace(/\./g, '/')}.py`, last, `${last}.py`].filter(
    (name, k, all) => name.length >= 5 && all.indexOf(name) === k
  )
}

function asWord(text: string, word: string): boolean {
  let from = 0
  for (;;) {
    const at = text.indexOf(word, from)
    if (at < 0) return false
    const before = text[at - 1] ?? ' '
    const after = text[at + word.length] ?? ' '
    if (!/[\w]/.test(before) && !/[\w]/.test(after)) return true
    from = at + 1
  }
}
