import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import type { TestRepo } from '../support/repo.js'
import { typoCliArgs, typoRepo, typoReplies } from './scenario.js'

const cleanups = cleanupAfterEach()
const LINT = ['--validation-command', 'npm run lint']

interface Recording {
  base_commit: string
  settings: Record<string, unknown>
  commands: Record<string, unknown>
  input: { fix_plan?: { validation_commands: string[] } }
  exchanges: Array<{ label: string; reply: string; reply_sha256: string }>
  outcome: { success: boolean; commits: Array<{ sha: string; tree: string }> }
}

/** The typo example run for real (pushed to the bare origin), its model server closed after. */
async function recordedRun(): Promise<{
  repo: TestRepo
  replayFile: string
  recording: Recording
}> {
  const repo = typoRepo()
  cleanups.push(() => repo.cleanup())
  const server = await startModelServer(replyByMatch(typoReplies().replies))
  const output = join(repo.root, 'out', 'result.json')
  const run = await runCli([...typoCliArgs(repo.dir, server.url), '--output', output], {
    env: { OPENAI_API_KEY: 'sk-recorded-run-1234' }
  })
  await server.close()
  expect(run.exitCode, run.stderr).toBe(0)
  const replayFile = join(repo.root, 'out', 'replay.json')
  expect(run.stderr).toContain(`Replay recording written to ${replayFile}`)
  const recording = JSON.parse(readFileSync(replayFile, 'utf8')) as Recording
  return { repo, replayFile, recording }
}

function replay(file: string, repo: TestRepo, ...flags: Array<string | Record<string, string>>) {
  const env = flags.find((flag) => typeof flag === 'object')
  const args = flags.filter((flag) => typeof flag === 'string')
  return runCli(['replay', file, '--repo', repo.dir, ...args, '--json'], {
    env: { OPENAI_API_KEY: 'sk-replayer-never-sent-5678', ...env }
  })
}

/** Stand-ins for the programs Patchsmith runs on the host, each leaving a marker, in `folder`. */
function plantHostPrograms(folder: string): { folder: string; marker: string } {
  const marker = join(dirname(folder), 'ran-on-host')
  mkdirSync(folder)
  for (const name of HOST_PROGRAMS) {
    const real = execFileSync('sh', ['-c', `command -v ${name} || true`], {
      encoding: 'utf8',
      env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' }
    }).trim()
    if (!real) continue
    writeFileSync(join(folder, name), `#!/bin/sh\ntouch '${marker}'\nexec '${real}' "$@"\n`, {
      mode: 0o755
    })
  }
  return { folder, marker }
}

const HOST_PROGRAMS =
  'git bwrap unshare sudo setpriv prlimit mount umount ip find perl env ssh'.split(' ')

function refs(repo: TestRepo): string {
  return repo.git('for-each-ref', '--format=%(refname) %(objectname)')
}

describe('patchsmith replay (node dist/cli.js)', () => {
  it('records a real run and replays it offline to the same tree, leaving the repository alone', async () => {
    const { repo, replayFile, recording } = await recordedRun()
    const sha = repo.gitOrigin('rev-parse', 'docs/42-fix-typo-readme')
    expect(recording.base_commit).toBe(repo.git('rev-parse', 'main'))
    expect(recording.outcome.commits).toEqual([
      { sha, tree: repo.git('rev-parse', `${sha}^{tree}`), branch: 'docs/42-fix-typo-readme' }
    ])
    expect(recording.exchanges.map((exchange) => exchange.label)).toEqual([
      'README.md',
      'model call'
    ])
    expect(recording.commands).toEqual({
      validationCommands: ['npm run lint'],
      setupCommands: [],
      allowPlanCommands: false
    })
    // The key is a secret: never in the recording.
    expect(readFileSync(replayFile, 'utf8')).not.toContain('sk-recorded-run-1234')
    const before = refs(repo)
    // The jail's programs and git in a folder of the source repository on PATH: the replay
    // works on a clone elsewhere, and still never runs them (attack round 15).
    const planted = plantHostPrograms(join(repo.dir, 'tools'))

    const run = await replay(replayFile, repo, ...LINT, {
      PATH: `${planted.folder}:${process.env.PATH}`
    })

    expect(existsSync(planted.marker)).toBe(false)
    rmSync(planted.folder, { recursive: true })
    expect(run.exitCode, run.stderr).toBe(0)
    const verdict = JSON.parse(run.stdout) as { same: boolean; commits: Array<{ tree: string }> }
    expect(verdict.same).toBe(true)
    expect(verdict.commits.map((commit) => commit.tree)).toEqual([
      recording.outcome.commits[0]!.tree
    ])
    expect(run.stderr).toMatch(
      /patchsmith replay: same as recorded: 2 model call\(s\) and 2 command\(s\) as recorded, the same tree [0-9a-f]{40}/
    )
    expect(refs(repo)).toBe(before)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('names an edited reply as the divergence, and the tree it led to', async () => {
    const { repo, replayFile, recording } = await recordedRun()
    const [draft] = recording.exchanges
    // Still a valid diff that fixes the typo, with a word of its own: the change differs.
    draft!.reply = draft!.reply.replace('+Run the following command:', '+Run the next command:')
    writeFileSync(replayFile, JSON.stringify(recording))

    const run = await replay(replayFile, repo, ...LINT)

    expect(run.exitCode, run.stderr).toBe(1)
    expect(run.stderr).toContain(
      'patchsmith replay: diverged at reply 1 of 2 (README.md, attempt 1) was edited after the run: its text no longer matches its recorded sha256'
    )
    expect(run.stderr).toMatch(
      / {2}then: the final tree differs: recorded [0-9a-f]{40}, replayed [0-9a-f]{40}/
    )
    const verdict = JSON.parse(run.stdout) as {
      same: boolean
      divergences: Array<{ kind: string }>
    }
    // The commit-message request carries the diff: it differs too, and the run goes on with
    // the template, as it does when that call fails.
    expect(verdict.divergences.map((d) => d.kind)).toEqual(['reply-edited', 'request', 'tree'])
  })

  it('names a changed prompt as the request that differs', async () => {
    const { repo, replayFile, recording } = await recordedRun()
    // What a changed prompt template looks like to the replay: the recorded request is not the one asked.
    const first = (recording.exchanges[0] as unknown as { messages: Array<{ content: string }> })
      .messages[0]!
    first.content = `${first.content} (an older wording)`
    writeFileSync(replayFile, JSON.stringify(recording))

    const run = await replay(replayFile, repo, ...LINT)

    expect(run.exitCode, run.stderr).toBe(1)
    expect(run.stderr).toMatch(
      /diverged at request 1 differs from recorded request 1 \(README\.md, attempt 1\): message 1 \(system\) differs at character \d+: .*: the prompt changed/
    )
  })

  it('refuses a recording that brings its own sandbox setting, before anything runs', async () => {
    const { repo, replayFile, recording } = await recordedRun()
    recording.settings.sandbox = 'off'
    writeFileSync(replayFile, JSON.stringify(recording))

    const run = await replay(replayFile, repo, ...LINT)

    expect(run.exitCode).toBe(1)
    const verdict = JSON.parse(run.stdout) as { error: { code: string; details: { rule: string } } }
    expect(verdict.error.code).toBe('SECURITY_VIOLATION')
    expect(verdict.error.details.rule).toBe('replay-setting')
    expect(run.stderr).toContain('sets sandbox: a replay never takes this from a recording')
  })

  it("never runs a recording's commands the user's settings do not give", async () => {
    const { repo, replayFile, recording } = await recordedRun()
    const planted = join(repo.root, 'planted')
    const hostile = `touch ${planted}`
    recording.commands.validationCommands = [hostile]
    recording.input.fix_plan!.validation_commands = [hostile]
    writeFileSync(replayFile, JSON.stringify(recording))

    const run = await replay(replayFile, repo, ...LINT)

    expect(run.exitCode).toBe(1)
    const verdict = JSON.parse(run.stdout) as { error: { code: string; details: { rule: string } } }
    expect(verdict.error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'replay-command' }
    })
    expect(existsSync(planted)).toBe(false)

    // Given the user's own command, the plan's hostile one is refused by the run's own guard.
    recording.commands.validationCommands = ['npm run lint']
    writeFileSync(replayFile, JSON.stringify(recording))
    const guarded = await replay(replayFile, repo, ...LINT)
    expect(guarded.exitCode).toBe(1)
    expect(guarded.stderr).toMatch(
      /diverged at the outcome differs: recorded success, replayed SECURITY_VIOLATION/
    )
    expect(existsSync(planted)).toBe(false)
  })

  it('refuses a file that is not a recording, and a base commit the repository lacks', async () => {
    const { repo, replayFile, recording } = await recordedRun()
    writeFileSync(replayFile, '{"patchsmith_replay": 1, "__proto__": {"polluted": true}}')
    const proto = await replay(replayFile, repo, ...LINT)
    expect(proto.exitCode).toBe(1)
    expect(proto.stderr).toContain('INVALID_INPUT')
    expect(proto.stderr).toContain('[rule forbidden-key]')

    // The replay's own recording would go where the one it replays is: a usage error.
    const overwrite = await replay(
      replayFile,
      repo,
      ...LINT,
      '--output',
      join(repo.root, 'out', 'result.json')
    )
    expect(overwrite.exitCode).toBe(2)
    expect(overwrite.stderr).toContain("would write the replay's own recording over")

    writeFileSync(replayFile, JSON.stringify({ ...recording, base_commit: 'f'.repeat(40) }))
    const missing = await replay(replayFile, repo, ...LINT)
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toContain('[rule replay-base-missing]')
  })
})
