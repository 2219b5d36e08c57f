/**
 * The runner facade (src/report/actions-io.ts) over @actions/core: outputs, state and summary land
 * in the runner's files, annotations carry file and line, model text cannot run a command.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { placeOf, actionsIo } from '../../src/report/index.js'
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

describe('runner facade over @actions/core', () => {
  it('writes GITHUB_OUTPUT blocks with a fresh delimiter each, which parse back to the values', () => {
    const file = tempFile('output')
    withEnv({ GITHUB_OUTPUT: file }, () => OUTPUTS.forEach(([n, v]) => actionsIo.setOutput(n, v)))
    const text = readFileSync(file, 'utf8')
    expect(new Set(text.match(/ghadelimiter_[0-9a-f-]+/g)).size).toBe(OUTPUTS.length)
    const parsed = parseOutputFile(text)
    expect(parsed.commits).toBe(OUTPUTS[0]![1])
    expect(parsed.success).toBe('true')
    expect(parsed.tokens).toBe('{"prompt":10,"completion":2}')
    // The runner reads the file line by line: CRLF inside a value comes back as LF.
    expect(parsed['looks-like-a-block']).toBe(String(OUTPUTS[4]![1]).replace('\r\n', '\n'))
    expect(Object.keys(parsed)).toEqual(OUTPUTS.map(([name]) => name))
  })

  it('saves state to GITHUB_STATE and reads it back as the post step would (STATE_*)', () => {
    const file = tempFile('state')
    withEnv({ GITHUB_STATE: file }, () => actionsIo.saveState('journal', { branch: 'b' }))
    const saved = parseOutputFile(readFileSync(file, 'utf8'))
    expect(saved.journal).toBe('{"branch":"b"}')
    withEnv({ STATE_journal: saved.journal }, () =>
      expect(actionsIo.getState('journal')).toBe('{"branch":"b"}')
    )
  })

  it('masks, warns, fails with an error annotation on the file and line, and groups', async () => {
    const { stdout, exitCode } = captured(() => {
      actionsIo.setSecret('sk-abc%\r\nline two')
      actionsIo.warning('50% of\nthe files', { file: 'src/a.ts' })
      actionsIo.setFailed('INVALID_DIFF: hunk 2 not found', placeOf({ path: 'src/a.ts', line: 12 }))
    })
    expect(exitCode).toBe(1)
    expect(stdout).toContain('::add-mask::sk-abc%25%0D%0Aline two\n')
    expect(stdout).toContain('::warning file=src/a.ts::50%25 of%0Athe files\n')
    expect(stdout).toContain('::error file=src/a.ts,line=12::INVALID_DIFF: hunk 2 not found\n')
    expect(captured(() => actionsIo.setFailed('x', placeOf({ field: 'fix-plan' }))).stdout).toBe(
      '::error::x\n'
    )
    let grouped = ''
    const write = process.stdout.write.bind(process.stdout)
    process.stdout.write = ((chunk: string) => ((grouped += chunk), true)) as typeof write
    try {
      await actionsIo.group('Artifact', async () => actionsIo.info('uploaded'))
    } finally {
      process.stdout.write = write
    }
    expect(grouped).toBe('::group::Artifact\nuploaded\n::endgroup::\n')
  })

  it('fences a log line that holds a workflow command, so model text cannot run one', () => {
    const hostile = 'Root cause:\n::add-mask::ghs_x\n  ::set-env name=NODE_OPTIONS::--require=/x'
    const { stdout } = captured(() => actionsIo.info(hostile))
    const [first, ...rest] = stdout.trimEnd().split('\n')
    const token = /^::stop-commands::([0-9a-f-]{36})$/.exec(first!)?.[1]
    expect(token).toBeDefined()
    expect(rest.at(-1)).toBe(`::${token}::`)
    expect(rest.slice(0, -1).join('\n')).toBe(hostile)
    expect(captured(() => actionsIo.info('a :: b')).stdout).toBe('a :: b\n')
  })

  it('reads inputs by their action.yml names (INPUT_*, trimmed)', () => {
    withEnv({ 'INPUT_FIX-PLAN': '  plan.json \n', INPUT_MODEL_NAME: 'm', INPUT_EMPTY: '' }, () => {
      expect(actionsIo.getInput('fix-plan')).toBe('plan.json')
      expect(actionsIo.getInput('model name')).toBe('m')
      expect(actionsIo.getInput('empty')).toBe('')
      expect(actionsIo.getInput('absent')).toBe('')
    })
  })

  it('appends to the summary file named now, and says when there is none', async () => {
    const first = tempFile('first')
    const second = tempFile('second')
    const previous = process.env.GITHUB_STEP_SUMMARY
    try {
      process.env.GITHUB_STEP_SUMMARY = first
      await actionsIo.appendSummary('# one')
      await actionsIo.appendSummary('two')
      process.env.GITHUB_STEP_SUMMARY = second
      await actionsIo.appendSummary('three')
      delete process.env.GITHUB_STEP_SUMMARY
      expect(await actionsIo.appendSummary('x')).toBe(false)
    } finally {
      if (previous === undefined) delete process.env.GITHUB_STEP_SUMMARY
      else process.env.GITHUB_STEP_SUMMARY = previous
    }
    expect(readFileSync(first, 'utf8')).toBe('# one\ntwo\n')
    expect(readFileSync(second, 'utf8')).toBe('three\n')
  })
})
