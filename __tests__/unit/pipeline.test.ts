import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  errorExcerpt,
  failureFingerprint,
  pipelineSteps,
  runPipeline,
  type PipelineOptions,
  type PipelineStep
} from '../../src/validation/index.js'
import { SecretMasker } from '../../src/secrets/index.js'

const cwd = mkdtempSync(join(tmpdir(), 'patchsmith-pipeline-'))
afterAll(() => rmSync(cwd, { recursive: true, force: true }))

function options(overrides: Partial<PipelineOptions> = {}): PipelineOptions {
  return {
    cwd,
    timeoutMs: 30_000,
    outputLimit: 1000,
    masker: new SecretMasker(),
    retryFlaky: false,
    keepPreexisting: false,
    ...overrides
  }
}

const command = (text: string): PipelineStep => ({ step: 'command', command: text })

describe('pipelineSteps', () => {
  it('orders format, lint, typecheck, test, then the plain commands, each once', () => {
    const steps = pipelineSteps(
      {
        testCommand: 'npm test',
        lintCommand: 'npm run lint',
        lintFixCommand: 'eslint --fix .',
        formatCommand: 'prettier --check .',
        typecheckCommand: 'tsc --noEmit'
      },
      ['npm run lint', 'node check.js']
    )
    expect(steps.map((s) => [s.step, s.command, s.fix])).toEqual([
      ['format', 'prettier --check .', undefined],
      ['lint', 'npm run lint', 'eslint --fix .'],
      ['typecheck', 'tsc --noEmit', undefined],
      ['test', 'npm test', undefined],
      ['command', 'node check.js', undefined]
    ])
  })
})

describe('runPipeline', () => {
  it('runs the steps in order and stops at the first failure', async () => {
    const marker = join(cwd, 'after-failure')
    const outcome = await runPipeline(
      ['echo one', 'echo two >&2; exit 4', `touch ${marker}`].map(command),
      options()
    )
    expect(outcome.results.map((r) => r.exit_code)).toEqual([0, 4])
    expect(outcome.failed?.outcome.command).toBe('echo two >&2; exit 4')
    expect(outcome.failed?.outcome.stderr).toBe('two\n')
    expect(existsSync(marker)).toBe(false)
  })

  it('auto-fixes a failing format step with its fix command, then checks again', async () => {
    const file = join(cwd, 'style.txt')
    writeFileSync(file, 'ugly\n')
    let synced = 0
    const outcome = await runPipeline(
      [
        { step: 'format', command: `grep -q pretty ${file}`, fix: `echo pretty > ${file}` },
        command('true')
      ],
      options({ afterFix: async () => void synced++ })
    )
    expect(outcome.failed).toBeUndefined()
    expect(synced).toBe(1)
    expect(outcome.results[0]).toMatchObject({ step: 'format', exit_code: 0, auto_fixed: true })
    expect(outcome.runs.map((r) => r.exit_code)).toEqual([1, 0, 0, 0])
  })

  it('fails a format step whose fix does not help, without asking anything else', async () => {
    const outcome = await runPipeline(
      [{ step: 'lint', command: 'echo "lint error" >&2; exit 2', fix: 'true' }, command('true')],
      options()
    )
    expect(outcome.failed?.step.step).toBe('lint')
    expect(outcome.results).toHaveLength(1)
    expect(outcome.results[0]!.auto_fixed).toBeUndefined()
  })

  it('reruns a failing test once with retry-flaky and marks a pass as flaky', async () => {
    const counter = join(cwd, 'flaky-count')
    const flaky = `n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n+1)) > ${counter}; [ "$n" -ge 1 ]`
    const withRetry = await runPipeline(
      [{ step: 'test', command: flaky }],
      options({ retryFlaky: true })
    )
    expect(withRetry.failed).toBeUndefined()
    expect(withRetry.results[0]).toMatchObject({ exit_code: 0, flaky: true })
    rmSync(counter)
    const without = await runPipeline([{ step: 'test', command: flaky }], options())
    expect(without.failed?.outcome.exit_code).toBe(1)
  })

  it('asks the base about a failure and keeps going past a same preexisting one only when told', async () => {
    const base = {
      failsOnBase: true,
      sameFailure: true,
      run: { exit_code: 3, stdout: '', stderr: '' }
    }
    const steps = ['exit 3', 'true'].map(command)
    const stop = await runPipeline(steps, options({ checkBase: async () => base }))
    expect(stop.failed?.base).toEqual(base)
    expect(stop.results[0]).toMatchObject({ exit_code: 3, preexisting: true })
    const keep = await runPipeline(
      steps,
      options({ checkBase: async () => base, keepPreexisting: true })
    )
    expect(keep.failed).toBeUndefined()
    expect(keep.results.map((r) => [r.exit_code, r.preexisting])).toEqual([
      [3, true],
      [0, undefined]
    ])
    const different = await runPipeline(
      steps,
      options({
        checkBase: async () => ({
          failsOnBase: true,
          sameFailure: false,
          run: { exit_code: 1, stdout: '', stderr: 'another failure' }
        }),
        keepPreexisting: true
      })
    )
    expect(different.failed?.outcome.exit_code).toBe(3)
  })
})

describe('failure text', () => {
  it('fingerprints the same failure alike despite line numbers, times and temp paths', () => {
    const a = failureFingerprint(
      1,
      '',
      'src/a.ts:10:5 error TS2322: bad type\nDone in 1.2s\n/tmp/x1/y'
    )
    const b = failureFingerprint(
      1,
      '',
      'src/a.ts:12:9 error TS2322: bad type\nDone in 3.4s\n/tmp/z9/y'
    )
    const c = failureFingerprint(1, '', 'src/a.ts:12:9 error TS2345: other problem')
    expect(a).toBe(b)
    expect(a).not.toBe(c)
  })

  it('keeps the numbers that are the failure: "got 2" is not "got 4"', () => {
    const got = (n: number, line: number) =>
      failureFingerprint(
        1,
        `FAIL test/sum.test.js\n  ● sum › adds\n    Error: expected 3, got ${n}\n      at test/sum.test.js:${line}:5`,
        ''
      )
    expect(got(2, 10)).not.toBe(got(4, 10))
    expect(got(2, 10)).toBe(got(2, 14))
    expect(failureFingerprint(1, 'AssertionError at line 12: 1 !== 2', '')).toBe(
      failureFingerprint(1, 'AssertionError at line 40: 1 !== 2', '')
    )
  })

  it('puts error lines first in the repair excerpt and stays within its limit', () => {
    const noise = Array.from({ length: 2000 }, (_, i) => `ok line ${i}`).join('\n')
    const excerpt = errorExcerpt(`${noise}\nTypeError: x is undefined\n${noise}`, '', 3000)
    expect(excerpt.startsWith('Error lines:')).toBe(true)
    expect(excerpt).toContain('TypeError: x is undefined')
    expect(excerpt.length).toBeLessThanOrEqual(3000 + 40)
    expect(excerpt).toContain('ok line 1999')
  })
})
