/**
 * The runner protocol (src/report/runner.ts) against @actions/core itself: the same calls must
 * leave the same GITHUB_OUTPUT blocks, job summary and workflow commands.
 */
import * as core from '@actions/core'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runner } from '../../src/report/index.js'
import { parseOutputFile } from '../support/action-runner.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!()
})

const OUTPUTS: Array<[string, unknown]> = [
  ['commits', '[\n  {"sha": "abc", "message": "fix: x\\n\\nFixes #1"}\n]'],
  ['success', true],
  ['error-code', ''],
  ['tokens', { prompt: 10, completion: 2 }],
  ['looks-like-a-block', 'x<<EOF\nsuccess=false\nEOF\r\n100% done']
]

function withEnv<T>(values: Record<string, string | undefined>, action: () => T): T {
  const previous = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]))
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  try {
    return action()
  } finally {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
}

/** What `action` writes to stdout, and the exit code it leaves. */
function captured(action: () => void): { stdout: string; exitCode: typeof process.exitCode } {
  const write = process.stdout.write.bind(process.stdout)
  const exitCode = process.exitCode
  let stdout = ''
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += String(chunk)
    return true
  }) as typeof process.stdout.write
  try {
    action()
    return { stdout, exitCode: process.exitCode }
  } finally {
    process.stdout.write = write
    process.exitCode = exitCode
  }
}

function tempFile(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-runner-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, name)
  writeFileSync(file, '')
  return file
}

/** The file with each random delimiter replaced by its order of appearance. */
function normalised(text: string): string {
  const seen = new Map<string, string>()
  return text.replace(/ghadelimiter_[0-9a-f-]+/g, (d) => {
    if (!seen.has(d)) seen.set(d, `D${seen.size}`)
    return seen.get(d)!
  })
}

describe('runner protocol, compared with @actions/core', () => {
  it('writes the same GITHUB_OUTPUT blocks, which parse back to the values', () => {
    const ours = tempFile('ours')
    const theirs = tempFile('theirs')
    withEnv({ GITHUB_OUTPUT: ours }, () => OUTPUTS.forEach(([n, v]) => runner.setOutput(n, v)))
    withEnv({ GITHUB_OUTPUT: theirs }, () => OUTPUTS.forEach(([n, v]) => core.setOutput(n, v)))
    const text = readFileSync(ours, 'utf8')
    expect(normalised(text)).toBe(normalised(readFileSync(theirs, 'utf8')))
    expect(new Set(text.match(/ghadelimiter_[0-9a-f-]+/g)).size).toBe(OUTPUTS.length)
    const parsed = parseOutputFile(text)
    expect(parsed.commits).toBe(OUTPUTS[0]![1])
    expect(parsed.success).toBe('true')
    expect(parsed.tokens).toBe('{"prompt":10,"completion":2}')
    expect(Object.keys(parsed)).toEqual(OUTPUTS.map(([name]) => name))
  })

  it('refuses an output file that does not exist, as @actions/core does', () => {
    withEnv({ GITHUB_OUTPUT: join(tmpdir(), 'patchsmith-no-such-dir', 'output') }, () =>
      expect(() => runner.setOutput('a', 'b')).toThrow(/Missing file/)
    )
  })

  it('prints the same commands for masks, warnings, debug lines and failures', () => {
    const calls = (api: {
      setSecret(v: string): void
      warning(m: string): void
      debug(m: string): void
      info(m: string): void
      setFailed(m: string): void
    }) => {
      api.setSecret('sk-abc%\r\nline two')
      api.warning('50% of\nthe files')
      api.debug('::set-output name=x::y')
      api.info('plain line')
      api.setFailed('VALIDATION_FAILED: npm test\nexit 1')
    }
    const ours = captured(() => calls(runner))
    const theirs = captured(() => calls(core))
    expect(ours.stdout).toBe(theirs.stdout)
    expect(ours.exitCode).toBe(1)
    expect(ours.stdout).toContain('::add-mask::sk-abc%25%0D%0Aline two\n')
  })

  it('fences a log line that holds a workflow command, so model text cannot run one', () => {
    const hostile = 'Root cause:\n::add-mask::ghs_x\n  ::set-env name=NODE_OPTIONS::--require=/x'
    const { stdout } = captured(() => runner.info(hostile))
    const [first, ...rest] = stdout.trimEnd().split('\n')
    const token = /^::stop-commands::([0-9a-f-]{36})$/.exec(first!)?.[1]
    expect(token).toBeDefined()
    expect(rest.at(-1)).toBe(`::${token}::`)
    expect(rest.slice(0, -1).join('\n')).toBe(hostile)
    expect(captured(() => runner.info('a :: b')).stdout).toBe('a :: b\n')
  })

  it('writes set-output commands when there is no output file, as @actions/core does', () => {
    const call = (set: (n: string, v: unknown) => void) =>
      withEnv({ GITHUB_OUTPUT: undefined }, () => captured(() => set('a:b,c', 'x\ny')).stdout)
    expect(call(runner.setOutput)).toBe(call(core.setOutput))
  })

  it('reads inputs the way @actions/core does', () => {
    withEnv({ 'INPUT_FIX-PLAN': '  plan.json \n', INPUT_MODEL_NAME: 'm', INPUT_EMPTY: '' }, () => {
      for (const name of ['fix-plan', 'model name', 'empty', 'absent'])
        expect(runner.getInput(name)).toBe(core.getInput(name))
    })
    expect(runner.getInput('fix-plan')).toBe('')
  })

  it('appends to the job summary, and says when there is none', async () => {
    const ours = tempFile('ours')
    const theirs = tempFile('theirs')
    withEnv({ GITHUB_STEP_SUMMARY: ours }, () => {
      runner.appendSummary('# one')
      runner.appendSummary('two')
    })
    const previous = process.env.GITHUB_STEP_SUMMARY
    process.env.GITHUB_STEP_SUMMARY = theirs
    try {
      await core.summary.addRaw('# one', true).write()
      await core.summary.addRaw('two', true).write()
    } finally {
      if (previous === undefined) delete process.env.GITHUB_STEP_SUMMARY
      else process.env.GITHUB_STEP_SUMMARY = previous
    }
    expect(readFileSync(ours, 'utf8')).toBe(readFileSync(theirs, 'utf8'))
    withEnv({ GITHUB_STEP_SUMMARY: undefined }, () => expect(runner.appendSummary('x')).toBe(false))
  })
})
