import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AttemptSettings } from '../../src/agent/attempt-settings.js'
import { attemptChange } from '../../src/agent/attempts.js'
import type { CommandRunner } from '../../src/agent/commands.js'
import { PhaseClock } from '../../src/run/phase-clock.js'
import { ChangeBranch } from '../../src/change/index.js'
import { Git } from '../../src/git/index.js'
import { DEFAULT_STYLE, ModelClient } from '../../src/model/index.js'
import { PathPolicy } from '../../src/policy/index.js'
import { AttemptLog } from '../../src/report/index.js'
import { SecretMasker } from '../../src/secrets/index.js'
import type { CommandOutcome } from '../../src/validation/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { startModelServer, type ReplyScript } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()
const quiet = { info() {}, warn() {}, debug() {} }

type Verdict = (content: string) => { exit: number; stderr?: string }

/** A command runner of the test's own: each command's outcome from the planned file's content. */
class FakeCommands implements CommandRunner {
  readonly calls: { command: string; content: string }[] = []
  constructor(
    readonly cwd: string,
    private readonly verdict: Verdict
  ) {}

  async run(command: string): Promise<CommandOutcome> {
    const content = readFileSync(join(this.cwd, 'src/greet.txt'), 'utf8')
    this.calls.push({ command, content })
    const { exit, stderr = exit === 0 ? '' : `failed on: ${content.trim()}` } =
      this.verdict(content)
    return {
      command,
      exit_code: exit,
      stdout: '',
      stderr,
      duration_ms: 1,
      timedOut: false,
      full: { stdout: '', stderr }
    }
  }
}

const reply = (content: string) => `^^^src/greet.txt\n${content}^^^end\n`

async function settingsFor(script: ReplyScript, verdict: Verdict, maxRepairs = 2) {
  const repo = createRepo({ files: { 'src/greet.txt': 'hello\n' }, prefix: 'attempts' })
  const logs = mkdtempSync(join(tmpdir(), 'patchsmith-attempt-logs-'))
  const model = await startModelServer(script)
  cleanups.push(() => repo.cleanup())
  cleanups.push(() => rmSync(logs, { recursive: true, force: true }))
  cleanups.push(() => model.close())
  const git = await Git.open(repo.dir)
  const branch = await ChangeBranch.prepare(git, {
    branch: 'fix/3-greeting',
    plannedPaths: ['src/greet.txt']
  })
  await branch.create()
  const runner = new FakeCommands(repo.dir, verdict)
  const settings: AttemptSettings = {
    input: {
      issue: { number: 3, title: 'Greet the world', body: 'Say hello to the world.' },
      fix_plan: {
        branch_name: 'fix/3-greeting',
        plan_steps: ['Greet the world'],
        file_changes: [{ path: 'src/greet.txt', operation: 'MODIFY', description: 'greet' }],
        validation_commands: ['check-greeting']
      }
    } as AttemptSettings['input'],
    format: 'whole-file',
    style: DEFAULT_STYLE,
    base: new Map([['src/greet.txt', 'hello\n']]),
    concurrency: 1,
    model: new ModelClient({ baseUrl: model.url, apiKey: 'test', model: 'm', timeoutMs: 60_000 }),
    log: new AttemptLog(logs, (text) => text),
    logger: quiet,
    policy: new PathPolicy({ blockedGlobs: [], allowProtected: [] }),
    steps: [{ step: 'command', command: 'check-greeting' }],
    runner,
    retryFlaky: false,
    keepPreexisting: false,
    branch,
    maxRepairs,
    clock: new PhaseClock(),
    masker: new SecretMasker()
  }
  return { repo, runner, settings, model }
}

describe('attemptChange, on a real repository with a fake command runner', () => {
  it('repairs with the failure in hand and returns the validated change with its statistics', async () => {
    const { runner, settings, model } = await settingsFor(
      [reply('hello, wrld\n'), reply('hello, world\n')],
      (content) => ({ exit: content === 'hello, world\n' ? 0 : 1 })
    )
    const outcome = await attemptChange(settings)
    expect(outcome.ok).toBe(true)
    if (!outcome.ok) return
    expect(outcome.change.attempts).toBe(2)
    expect(outcome.change.edits.map((edit) => edit.after)).toEqual(['hello, world\n'])
    expect(outcome.stats).toMatchObject({ attempts: 2, repairs: 1, stop_reason: 'validated' })
    expect(outcome.stats.retries.validation).toBe(1)
    // The failure went into the repair prompt; the base was checked once in between, on its content.
    expect(JSON.stringify(model.requests[1]!.body.messages)).toContain('failed on: hello, wrld')
    expect(runner.calls.map((call) => call.content)).toEqual([
      'hello, wrld\n',
      'hello\n',
      'hello, world\n'
    ])
  })

  it('returns the stop with its statistics, not an exception, when a repair brings the same failure back', async () => {
    const { settings, model } = await settingsFor(
      [reply('hello, wrld\n'), reply('hello, wrld!\n'), reply('never asked\n')],
      (content) => (content === 'hello\n' ? { exit: 0 } : { exit: 1, stderr: 'always the same' })
    )
    const outcome = await attemptChange(settings)
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.error.code).toBe('VALIDATION_FAILED')
    expect(outcome.error.details).toMatchObject({ stop_reason: 'same-failure' })
    expect(outcome.error.details).not.toHaveProperty('stats')
    expect(outcome.stats).toMatchObject({ attempts: 2, repairs: 1, stop_reason: 'same-failure' })
    expect(model.requests).toHaveLength(2)
  })

  it('stops before any repair when the base fails the same way (preexisting)', async () => {
    const { settings, runner, model } = await settingsFor([reply('hello, world\n')], () => ({
      exit: 1,
      stderr: 'broken everywhere'
    }))
    const outcome = await attemptChange(settings)
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.stats).toMatchObject({ attempts: 1, stop_reason: 'preexisting' })
    expect(outcome.error.details).toMatchObject({ stop_reason: 'preexisting', preexisting: true })
    expect(runner.calls.map((call) => call.content)).toEqual(['hello, world\n', 'hello\n'])
    expect(model.requests).toHaveLength(1)
  })
})
