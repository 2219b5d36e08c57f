import { normaliseOutput } from './normalise.js'
import type { TestCase, TestReport } from './types.js'

// libtest's console format ("test name ... ok"); its JSON format needs nightly, and no npm
// package reads the console one.

const TEST_LINE = /^test (\S+) \.\.\. (ok|FAILED|ignored|bench)\b/

export function parseCargo(output: string): TestReport | undefined {
  if (!/^test result: /m.test(output)) return undefined
  const lines = output.split('\n')
  const tests = new Map<string, TestCase>()
  for (const line of lines) {
    const hit = TEST_LINE.exec(line)
    if (!hit) continue
    const status = hit[2] === 'FAILED' ? 'failed' : hit[2] === 'ignored' ? 'skipped' : 'passed'
    tests.set(hit[1]!, { id: hit[1]!, status })
  }
  lines.forEach((line, i) => {
    const block = /^---- (\S+) stdout ----$/.exec(line)
    const test = block ? tests.get(block[1]!) : undefined
    if (!test) return
    const body: string[] = []
    for (let k = i + 1; k < lines.length; k++) {
      const next = lines[k]!
      // The backtrace's frames and the blank-line-separated tail are where the code was, not what failed.
      if (/^(---- |failures:$|stack backtrace:|note: )/.test(next)) break
      body.push(next)
    }
    test.message = normaliseOutput(body.join('\n'))
  })
  return tests.size > 0 ? { runner: 'cargo', tests: [...tests.values()] } : undefined
}
