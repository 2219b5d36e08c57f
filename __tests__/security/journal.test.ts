/**
 * The journal and the lock in `.git/patchsmith` are written by whatever can write `.git`, not
 * only by Patchsmith. A hand-written journal is never carried out (no branch deleted on origin,
 * no ref moved, no `git clean`, no option-shaped name on a command line): it is reported with
 * what to do, and the repository is left alone. A lock naming a process that is not a run (pid
 * 1, a reused pid) is stale. `patchsmith recover` says all of it and never throws.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cli } from '../../src/cli/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { type HostileOptions } from './hostile-run.js'
import { trackedHostileRuns } from './tracked-runs.js'

const tracked = trackedHostileRuns()

const repos: TestRepo[] = []
afterEach(() => repos.splice(0).forEach((repo) => repo.cleanup()))

/** A repository with a bare origin and nothing run in it yet. */
function freshRepo(setup?: (repo: TestRepo) => void): TestRepo {
  const repo = createRepo({ files: { 'README.md': '# Demo\n' }, prefix: 'journal' })
  repos.push(repo)
  setup?.(repo)
  return repo
}

/** A journal as the attacker writes it: the plain record today's reader took on trust. */
function plantJournal(repo: TestRepo, record: Record<string, unknown>): void {
  const head = repo.git('rev-parse', 'HEAD')
  mkdirSync(join(repo.dir, '.git/patchsmith'), { recursive: true })
  writeFileSync(
    join(repo.dir, '.git/patchsmith/journal.json'),
    JSON.stringify({
      pid: 2 ** 22 + 3,
      started: '2026-01-01T00:00:00Z',
      startBranch: 'main',
      startHead: head,
      base: 'main',
      baseSha: head,
      branch: 'fix/old',
      leftStart: false,
      createdLocal: false,
      worktreeChanged: false,
      baseMoved: false,
      commits: [],
      pushing: false,
      touched: [],
      ...record
    })
  )
}

function plantLock(repo: TestRepo, lock: Record<string, unknown>): void {
  mkdirSync(join(repo.dir, '.git/patchsmith'), { recursive: true })
  writeFileSync(join(repo.dir, '.git/patchsmith/lock'), JSON.stringify(lock))
}

/** `patchsmith recover` in this process, from source: its exit code and what it printed. */
async function recover(repo: TestRepo): Promise<{ exitCode: number; stderr: string }> {
  let stderr = ''
  const write = process.stderr.write
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk)
    return true
  }) as typeof process.stderr.write
  try {
    const exitCode = await cli(['recover', '--repo', repo.dir])
    return { exitCode, stderr }
  } finally {
    process.stderr.write = write
  }
}

function expectNoStackTrace(text: string): void {
  expect(text).not.toMatch(/\n\s+at .+[:(]\d+/)
  expect(text).not.toMatch(/Error:/)
}

const WHAT_TO_DO = /was not carried out: .*left the repository alone.*then delete .*journal\.json/s

/** One hand-written journal per attack, with what must still hold after the run and recover. */
const attacks: Array<[string, (repo: TestRepo) => void, (repo: TestRepo) => void]> = [
  [
    'deleting main on origin',
    (repo) => {
      const main = repo.git('rev-parse', 'HEAD')
      // A bare origin refuses to delete its HEAD branch by default; a hosted one may not.
      repo.gitOrigin('config', 'receive.denyDeleteCurrent', 'warn')
      plantJournal(repo, { branch: 'main', pushing: true, commits: [main], remoteBefore: null })
    },
    (repo) => expect(repo.gitOrigin('branch', '--list', 'main')).toContain('main')
  ],
  [
    'moving local main to an attacker commit',
    (repo) => {
      const main = repo.git('rev-parse', 'HEAD')
      const tree = repo.git('rev-parse', 'HEAD^{tree}')
      const evil = repo.git('commit-tree', tree, '-p', main, '-m', 'evil')
      plantJournal(repo, { baseMoved: true, baseSha: evil, commits: [main] })
      writeFileSync(join(repo.root, 'main.sha'), main)
    },
    (repo) =>
      expect(repo.git('rev-parse', 'main')).toBe(readFileSync(join(repo.root, 'main.sha'), 'utf8'))
  ],
  [
    'running git clean over untracked files',
    (repo) => {
      repo.write('my-notes.txt', 'mine\n')
      repo.write('drafts/plan.md', 'mine too\n')
      plantJournal(repo, { worktreeChanged: true, touched: ['.', '*', ':/', 'drafts'] })
    },
    (repo) => {
      expect(repo.read('my-notes.txt')).toBe('mine\n')
      expect(repo.read('drafts/plan.md')).toBe('mine too\n')
    }
  ],
  [
    'an option-shaped branch name',
    (repo) => plantJournal(repo, { startBranch: '--orphan=x', leftStart: true, branch: '-fx' }),
    (repo) => {
      // `checkout --orphan=x` would leave HEAD on an unborn branch x.
      expect(repo.git('symbolic-ref', '--short', 'HEAD')).not.toBe('x')
      expect(repo.git('rev-parse', 'HEAD')).toMatch(/^[0-9a-f]{40}$/)
    }
  ]
]

describe('a journal Patchsmith did not write', () => {
  it.each(attacks)(
    '%s: not carried out by the next run, which goes on and says what to do',
    async (_, plant, holds) => {
      const hostile = await tracked({ setup: plant })
      const { run, result, repo } = hostile
      expect(run.stdout).toMatch(WHAT_TO_DO)
      holds(repo)
      expect(result.success, JSON.stringify(result.error)).toBe(true)
      expect(existsSync(join(repo.dir, '.git/patchsmith/journal.unverified.json'))).toBe(true)
      expect(existsSync(join(repo.dir, '.git/patchsmith/journal.json'))).toBe(false)
    }
  )

  it.each(attacks)(
    '%s: `patchsmith recover` reports it, leaves everything alone, no stack trace',
    async (_, plant, holds) => {
      const repo = freshRepo(plant)
      const before = repo.git('status', '--porcelain', '--untracked-files=all')
      const out = await recover(repo)
      expect(out.stderr).toMatch(WHAT_TO_DO)
      expect(out.exitCode).toBe(1)
      expectNoStackTrace(out.stderr)
      holds(repo)
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe(before)
      expect(repo.gitOrigin('branch', '--list')).toBe('* main')
      expect(existsSync(join(repo.dir, '.git/patchsmith/journal.json'))).toBe(true)
    }
  )

  it('with changes a killed run may have left: the run refuses, touching nothing', async () => {
    const setup: HostileOptions['setup'] = (repo) => {
      repo.write('src/a.js', 'export const a = 42 // mine\n')
      plantJournal(repo, { startBranch: '-fx', leftStart: true })
    }
    const { result, model, repo, before } = await tracked({ setup })
    expect(result.error).toMatchObject({
      code: 'GIT_CONFLICT',
      details: { rule: 'journal-unverified' }
    })
    expect(result.error?.message).toMatch(WHAT_TO_DO)
    expect(result.error?.message).toContain('tracked files have uncommitted changes')
    expect(model.requests).toHaveLength(0)
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe(before.status)
    expect(repo.git('branch', '--list')).toBe(before.branches)
    expect(existsSync(join(repo.dir, '.git/patchsmith/journal.json'))).toBe(true)
  })
})

describe('a lock that is not a live run', () => {
  it('pid 1 is stale: the next run takes it over and succeeds', async () => {
    const hostile = await tracked({
      setup: (repo) => plantLock(repo, { pid: 1, started: '2026-01-01T00:00:00Z' })
    })
    expect(hostile.result.success, JSON.stringify(hostile.result.error)).toBe(true)
    expect(hostile.run.stdout).toContain('Took over a stale lock')
    expect(existsSync(join(hostile.repo.dir, '.git/patchsmith/lock'))).toBe(false)
  })

  it('a reused pid (alive, another start time) is stale', async () => {
    const hostile = await tracked({
      setup: (repo) =>
        plantLock(repo, { pid: process.pid, started: 'then', startTime: '1', runId: 'x' })
    })
    expect(hostile.result.success, JSON.stringify(hostile.result.error)).toBe(true)
    expect(hostile.run.stdout).toContain(`pid ${process.pid} is now another process`)
  })

  it('a live run (pid and start time match) still refuses the next one', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' })
    try {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
      const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
      const setup: HostileOptions['setup'] = (repo) =>
        plantLock(repo, { pid: child.pid, started: 'now', startTime, runId: 'y' })
      const { result, model, repo } = await tracked({ setup })
      expect(result.error).toMatchObject({
        code: 'GIT_CONFLICT',
        details: { rule: 'run-in-progress' }
      })
      expect(model.requests).toHaveLength(0)
      const out = await recover(repo)
      expect(out.exitCode).toBe(1)
      expect(out.stderr).toContain(`Another Patchsmith run (pid ${child.pid}`)
      expectNoStackTrace(out.stderr)
      expect(existsSync(join(repo.dir, '.git/patchsmith/lock'))).toBe(true)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('`patchsmith recover` clears a pid-1 lock, says so, and a tampered journal beside it', async () => {
    const repo = freshRepo()
    plantLock(repo, { pid: 1, started: '2026-01-01T00:00:00Z' })
    const out = await recover(repo)
    expect(out.stderr).toMatch(/Cleared a stale lock: it records no start time for pid 1/)
    expect(out.stderr).toContain('Nothing to recover')
    expect(out.exitCode).toBe(0)
    expect(existsSync(join(repo.dir, '.git/patchsmith/lock'))).toBe(false)
    plantLock(repo, { pid: 1, started: '2026-01-01T00:00:00Z' })
    plantJournal(repo, { branch: 'main', pushing: true, remoteBefore: null })
    const again = await recover(repo)
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toMatch(/Cleared a stale lock/)
    expect(again.stderr).toMatch(WHAT_TO_DO)
    expectNoStackTrace(again.stderr)
    expect(existsSync(join(repo.dir, '.git/patchsmith/lock'))).toBe(false)
  })
})

describe('the journal key', () => {
  it("is out of validation's sight, also in a state folder outside HOME", async () => {
    const state = mkdtempSync('/var/tmp/patchsmith-state-')
    try {
      const key = join(state, 'patchsmith/journal-key')
      const { result } = await tracked({
        env: () => ({ XDG_STATE_HOME: state }),
        inputs: { 'validation-commands': `cat ${key} || echo no key here`, sandbox: 'required' }
      })
      expect(result.success, JSON.stringify(result.error)).toBe(true)
      const secret = readFileSync(key, 'utf8').trim()
      expect(secret).toMatch(/^[0-9a-f]{64}$/)
      expect(JSON.stringify(result)).not.toContain(secret)
      expect(JSON.stringify(result)).toContain('no key here')
    } finally {
      rmSync(state, { recursive: true, force: true })
    }
  })
})
