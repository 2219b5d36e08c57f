import { BLOCK_LINES, normaliseOutput } from './normalise.js'
import type { TestCase, TestReport } from './types.js'

// Jest, Vitest and Mocha print their default reporters for people; their JSON reporters need a
// flag the maintainer's command does not pass. No npm package reads these console reporters,
// so the lines are read here: marks (✓ ✕ × ↓ ○ -), indentation for suites, failure headers.

const MARK_PASS = /^(\s*)(?:✓|✔|√)\s+(.+?)(?:\s+\(?\d+(?:\.\d+)?\s?ms\)?)?$/
const MARK_FAIL = /^(\s*)(?:✕|×|✗|✖)\s+(.+?)(?:\s+\(?\d+(?:\.\d+)?\s?ms\)?)?$/
const MARK_SKIP = /^(\s*)(?:○ skipped|○|↓|-)\s+(.+?)(?:\s+\[skipped\])?$/

/** Jest's default reporter: "FAIL file", suites by indentation, "● suite › test" failure blocks. */
export function parseJest(output: string): TestReport | undefined {
  if (!/^(PASS|FAIL) \S/m.test(output) || !/^Tests:\s+/m.test(output)) return undefined
  const tests = new Map<string, TestCase>()
  const lines = output.split('\n')
  let file: string | undefined
  const suites: { indent: number; name: string }[] = []
  lines.forEach((line, i) => {
    const header = /^(PASS|FAIL) (\S+)/.exec(line)
    if (header) {
      file = header[2]
      suites.length = 0
      return
    }
    const failure = /^\s+● (.+)$/.exec(line)
    if (failure && !failure[1]!.startsWith('Test suite failed')) {
      const id = failure[1]!.trim()
      tests.set(key(file, id), { id, file, status: 'failed', message: blockAfter(lines, i) })
      return
    }
    marked(line, suites, ' › ', (id, status) => {
      const known = tests.get(key(file, id))
      if (!known) tests.set(key(file, id), { id, file, status })
    })
  })
  return tests.size > 0 ? { runner: 'jest', tests: [...tests.values()] } : undefined
}

/** Vitest's default reporter: "✓ / × / ↓ name" lines under "❯ file", and "FAIL file > suite > test" blocks. */
export function parseVitest(output: string): TestReport | undefined {
  if (!/^[ \t]+Test Files[ \t]+/m.test(output)) return undefined
  const tests = new Map<string, TestCase>()
  const lines = output.split('\n')
  let file: string | undefined
  const suites: { indent: number; name: string }[] = []
  lines.forEach((line, i) => {
    const header = /^\s*(?:❯|✓|×)\s+(\S+\.\w+)\s+\(\d+ tests?/.exec(line)
    if (header) {
      file = header[1]
      suites.length = 0
      return
    }
    const failure = /^\s*FAIL\s+(\S+) > (.+)$/.exec(line)
    if (failure) {
      const id = failure[2]!.trim()
      tests.set(key(failure[1], id), {
        id,
        file: failure[1],
        status: 'failed',
        message: blockAfter(lines, i, true)
      })
      return
    }
    if (/^⎯+/.test(line)) file = undefined
    if (!file) return
    marked(line, suites, ' > ', (id, status) => {
      if (!tests.has(key(file, id))) tests.set(key(file, id), { id, file, status })
    })
  })
  // Vitest's tree omits the describe blocks a test sits in; the FAIL header names them.
  const all = [...tests.values()]
  const full = all.filter(
    (t) => !all.some((o) => o !== t && o.file === t.file && o.id.endsWith(` > ${t.id}`))
  )
  return full.length > 0 ? { runner: 'vitest', tests: full } : undefined
}

const TITLE_LINES = 20

/** Mocha's spec reporter: "✔ name", "N) name", "- name", suites by indentation, numbered failure blocks. */
export function parseMocha(output: string): TestReport | undefined {
  if (!/^[ \t]+\d+ passing \(/m.test(output)) return undefined
  const tests = new Map<string, TestCase>()
  const lines = output.split('\n')
  const suites: { indent: number; name: string }[] = []
  const numbered = new Map<string, string>()
  let inFailures = false
  lines.forEach((line, i) => {
    if (/^\s+\d+ (passing|failing|pending)/.test(line)) {
      inFailures = true
      return
    }
    const failed = /^(\s*)(\d+)\) (.+)$/.exec(line)
    if (failed && !inFailures) {
      const id = [
        ...suites.filter((s) => s.indent < failed[1]!.length).map((s) => s.name),
        failed[3]!.trim()
      ].join(' ')
      numbered.set(failed[2]!, id)
      tests.set(id, { id, status: 'failed' })
      return
    }
    if (failed && inFailures) {
      const id = numbered.get(failed[2]!)
      const test = id ? tests.get(id) : undefined
      // "1) suite" then the test's title ending in ":", then the error up to its stack.
      // Bounded: a title is a few lines, and hostile output must not make every block scan to the end.
      let k = i
      const last = Math.min(lines.length - 1, i + TITLE_LINES)
      while (k < last && !/:\s*$/.test(lines[k]!)) k++
      // Once per test: output that repeats a number must not be read again for each repeat.
      if (test && test.message === undefined) test.message = blockAfter(lines, k, true)
      return
    }
    if (!inFailures) marked(line, suites, ' ', (id, status) => tests.set(id, { id, status }))
  })
  return tests.size > 0 ? { runner: 'mocha', tests: [...tests.values()] } : undefined
}

function marked(
  line: string,
  suites: { indent: number; name: string }[],
  join: string,
  add: (id: string, status: TestCase['status']) => void
): void {
  const pass = MARK_PASS.exec(line)
  const fail = MARK_FAIL.exec(line)
  const skip = MARK_SKIP.exec(line)
  const hit = pass ?? fail ?? skip
  if (hit) {
    const indent = hit[1]!.length
    const path = suites.filter((s) => s.indent < indent).map((s) => s.name)
    add([...path, hit[2]!.trim()].join(join), pass ? 'passed' : fail ? 'failed' : 'skipped')
    return
  }
  const suite = /^(\s+)(\S.*)$/.exec(line)
  if (!suite) return
  const indent = suite[1]!.length
  while (suites.length > 0 && suites[suites.length - 1]!.indent >= indent) suites.pop()
  suites.push({ indent, name: suite[2]!.trim() })
}

/** The failure text under a header: up to the code frame or stack, normalised. */
function blockAfter(lines: string[], index: number, skipBlank = false): string {
  const body: string[] = []
  const end = Math.min(lines.length, index + 1 + BLOCK_LINES)
  for (let k = index + 1; k < end; k++) {
    const line = lines[k]!
    if (/^\s*(at |❯ |>? ?\d+ \|)|^\s+\d+\|/.test(line) || /^\s+● |^⎯/.test(line)) break
    if (!line.trim() && body.length > 0 && !skipBlank && body.length > 6) break
    body.push(line)
  }
  return normaliseOutput(body.join('\n'))
}

function key(file: string | undefined, id: string): string {
  return `${file ?? ''}\u0000${id}`
}
