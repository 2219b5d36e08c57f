import { normaliseOutput } from './normalise.js'
import type { TestCase, TestReport, TestStatus } from './types.js'

// `go test` prints "--- FAIL: Name (0.00s)" lines; `go test -json` prints test2json events.
// Both are read here: no npm package reads either, and test2json's events are plain JSON lines.

const RESULT = /^(\s*)--- (PASS|FAIL|SKIP): (\S+) \([\d.]+s\)/

export function parseGoTest(output: string): TestReport | undefined {
  if (
    !/^(ok|FAIL|---)\s/m.test(output) ||
    !RESULT.test(output.split('\n').find((l) => RESULT.test(l)) ?? '')
  )
    return undefined
  const lines = output.split('\n')
  const tests = new Map<string, TestCase>()
  const runOutput = new Map<string, string[]>()
  let running: string | undefined
  lines.forEach((line, i) => {
    const run = /^=== (RUN|CONT|PAUSE)\s+(\S+)/.exec(line)
    if (run) {
      running = run[2]
      // A test run again (-count, a second package) starts its log anew.
      if (run[1] === 'RUN' || !runOutput.has(running!)) runOutput.set(running!, [])
      return
    }
    const hit = RESULT.exec(line)
    if (!hit) {
      if (running && /^\s{4}\S/.test(line)) runOutput.get(running)!.push(line)
      return
    }
    running = undefined
    const id = hit[3]!
    const status = statusOf(hit[2]!)
    const test: TestCase = { id, status }
    if (status === 'failed') {
      // Without -v the test's log follows its FAIL line, indented; with -v it came before it.
      const after: string[] = []
      for (
        let k = i + 1;
        k < lines.length && /^\s{4,}\S/.test(lines[k]!) && !RESULT.test(lines[k]!);
        k++
      )
        after.push(lines[k]!)
      test.message = normaliseOutput([...(runOutput.get(id) ?? []), ...after].join('\n'))
    }
    tests.set(id, test)
  })
  return tests.size > 0 ? { runner: 'go', tests: [...tests.values()] } : undefined
}

interface GoEvent {
  Action?: string
  Package?: string
  Test?: string
  Output?: string
}

export function parseGoJson(output: string): TestReport | undefined {
  const events: GoEvent[] = []
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      events.push(JSON.parse(line) as GoEvent)
    } catch {
      return undefined
    }
  }
  if (events.length === 0 || !events.some((e) => e.Action && 'Package' in e)) return undefined
  const logs = new Map<string, string[]>()
  const tests: TestCase[] = []
  for (const event of events) {
    if (!event.Test) continue
    const id = `${event.Package ?? ''} ${event.Test}`.trim()
    if (event.Action === 'output') {
      const text = event.Output ?? ''
      if (!/^(=== |--- )/.test(text.trimStart()))
        logs.set(id, [...(logs.get(id) ?? []), text.trimEnd()])
    } else if (event.Action === 'pass' || event.Action === 'fail' || event.Action === 'skip') {
      const status = statusOf(event.Action.toUpperCase())
      tests.push({
        id: event.Test,
        file: event.Package,
        status,
        ...(status === 'failed'
          ? { message: normaliseOutput((logs.get(id) ?? []).join('\n')) }
          : {})
      })
    }
  }
  return tests.length > 0 ? { runner: 'go-json', tests } : undefined
}

function statusOf(word: string): TestStatus {
  return word === 'PASS' ? 'passed' : word === 'SKIP' ? 'skipped' : 'failed'
}
