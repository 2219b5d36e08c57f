/**
 * The run journal's integrity tag (keyed outside the repository), the checks on every value it
 * holds, and the rules of recovery that hold even for a journal that verifies: refs moved or
 * deleted only at the run's own commits, never a branch the run did not record creating, never
 * the base or a default branch, only untracked files at the recorded paths.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  recoverRepository,
  RunJournal,
  RunLock,
  type JournalRecord
} from '../../src/run-state/index.js'
import { journalKeyPath, loadJournalKey } from '../../src/run-state/journal-key.js'
import { branchNameProblem, journalPathProblem } from '../../src/run-state/journal-record.js'
import { createRepo, type TestRepo } from '../support/repo.js'

let state: string
const saved = process.env.XDG_STATE_HOME
beforeAll(() => {
  state = mkdtempSync(join(tmpdir(), 'patchsmith-state-'))
  process.env.XDG_STATE_HOME = state
})
afterAll(() => {
  if (saved === undefined) delete process.env.XDG_STATE_HOME
  else process.env.XDG_STATE_HOME = saved
  rmSync(state, { recursive: true, force: true })
})

const repos: TestRepo[] = []
afterEach(() => repos.splice(0).forEach((repo) => repo.cleanup()))

function repo(): TestRepo {
  const made = createRepo({ files: { 'README.md': '# Demo\n' }, prefix: 'journal-unit' })
  repos.push(made)
  return made
}

function record(repo: TestRepo, fields: Partial<JournalRecord> = {}): JournalRecord {
  const head = repo.git('rev-parse', 'HEAD')
  return {
    pid: 4242,
    started: '2026-01-01T00:00:00Z',
    startBranch: 'main',
    startHead: head,
    base: 'main',
    baseSha: head,
    branch: 'fix/7-x',
    leftStart: false,
    createdLocal: false,
    worktreeChanged: false,
    baseMoved: false,
    commits: [],
    pushing: false,
    touched: [],
    ...fields
  }
}

/** A commit on `branch` made the way a run makes one (without moving HEAD). */
function runCommit(repo: TestRepo, parent: string, message: string): string {
  const tree = repo.git('rev-parse', `${parent}^{tree}`)
  return repo.git('commit-tree', tree, '-p', parent, '-m', message)
}

describe('the journal file', () => {
  it('a journal this Patchsmith wrote verifies and reads back whole', () => {
    const r = repo()
    const journal = RunJournal.for(r.dir)
    journal.write(record(r, { touched: ['src/new.ts'] }))
    expect(journal.read()).toEqual({
      verified: true,
      record: record(r, { touched: ['src/new.ts'] })
    })
    expect(readFileSync(journalKeyPath(), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/)
  })

  it('writes through no link planted in .git/patchsmith (a hook could plant one)', () => {
    const r = repo()
    const journal = RunJournal.for(r.dir)
    const victim = join(r.root, 'victim.txt')
    writeFileSync(victim, 'keep me\n')
    mkdirSync(join(r.dir, '.git/patchsmith'), { recursive: true })
    symlinkSync(victim, `${journal.file}.tmp`)
    journal.write(record(r))
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n')
    expect(journal.read()).toMatchObject({ verified: true })
    // The folder itself as a link elsewhere: refused, nothing written there.
    const elsewhere = join(r.root, 'elsewhere')
    mkdirSync(elsewhere)
    rmSync(join(r.dir, '.git/patchsmith'), { recursive: true })
    symlinkSync(elsewhere, join(r.dir, '.git/patchsmith'))
    expect(() => journal.write(record(r))).toThrow(/unsafe-state-folder/)
    expect(readdirSync(elsewhere)).toEqual([])
  })

  it("a changed record, a forged tag, or another repository's journal does not verify", () => {
    const r = repo()
    const journal = RunJournal.for(r.dir)
    journal.write(record(r))
    const text = readFileSync(journal.file, 'utf8')
    writeFileSync(journal.file, text.replace('fix/7-x', 'main'))
    expect(journal.read()).toMatchObject({ verified: false, problem: /valid integrity tag/ })
    writeFileSync(journal.file, text.replace(/"tag":"[0-9a-f]+"/, `"tag":"${'0'.repeat(64)}"`))
    expect(journal.read()).toMatchObject({ verified: false, problem: /valid integrity tag/ })
    const other = repo()
    cpSync(join(r.dir, '.git/patchsmith'), join(other.dir, '.git/patchsmith'), { recursive: true })
    writeFileSync(journal.file, text)
    expect(journal.read()).toMatchObject({ verified: true })
    expect(RunJournal.for(other.dir).read()).toMatchObject({ verified: false })
  })

  it('a signed record with a value Patchsmith never writes is not carried out', () => {
    const r = repo()
    const journal = RunJournal.for(r.dir)
    for (const fields of [
      { branch: '-fx' },
      { startBranch: '--orphan=x' },
      { base: 'refs/heads/main' },
      { baseSha: 'HEAD~1' },
      { touched: ['.'] },
      { touched: ['/etc/passwd'] },
      { touched: ['src/../../x'] },
      { touched: [':(glob)**'] },
      { commits: ['main'] }
    ] as Array<Partial<JournalRecord>>) {
      journal.write(record(r, fields))
      expect(journal.read(), JSON.stringify(fields)).toMatchObject({
        verified: false,
        problem: /holds a value Patchsmith never writes/
      })
    }
  })

  it('a key file others can read is not used', () => {
    const other = mkdtempSync(join(tmpdir(), 'patchsmith-state-'))
    const env = process.env.XDG_STATE_HOME
    process.env.XDG_STATE_HOME = other
    try {
      const key = journalKeyPath()
      mkdirSync(join(key, '..'), { mode: 0o700 })
      writeFileSync(key, `${'a'.repeat(64)}\n`)
      chmodSync(key, 0o644)
      expect(loadJournalKey(true)).toMatchObject({ problem: /others can read/ })
      const r = repo()
      RunJournal.for(r.dir).write(record(r))
      expect(RunJournal.for(r.dir).read()).toMatchObject({
        verified: false,
        problem: /carries no integrity tag/
      })
    } finally {
      process.env.XDG_STATE_HOME = env
      rmSync(other, { recursive: true, force: true })
    }
  })

  it.each([
    ['fix/7-x', undefined],
    ['-fx', /option/],
    ['--orphan=x', /option/],
    ['HEAD', /not a branch/],
    ['a..b', /\.\./],
    ['a/.hidden', /"\."/],
    ['x.lock', /\.lock/],
    ['a b', /character/],
    ['a~1', /character/],
    ['/abs', /"\/"/]
  ])('branch name %s', (name, problem) => {
    if (problem) expect(branchNameProblem(name)).toMatch(problem)
    else expect(branchNameProblem(name)).toBeUndefined()
  })

  it.each([['src/a.ts'], ['.'], ['..'], ['a/./b'], ['/x'], ['-x'], [':/'], ['.git/config'], ['']])(
    'path %s',
    (path) => {
      if (path === 'src/a.ts') expect(journalPathProblem(path)).toBeUndefined()
      else expect(journalPathProblem(path)).toBeDefined()
    }
  )
})

describe('recovery from a journal that verifies', () => {
  it('undoes what the run did: its branch, its commit on the base, the files it created', async () => {
    const r = repo()
    const base = r.git('rev-parse', 'HEAD')
    const mine = runCommit(r, base, 'fix: the run')
    r.git('update-ref', 'refs/heads/main', mine)
    r.git('reset', '--hard', '-q')
    r.git('branch', 'fix/7-x', mine)
    r.write('src/new.ts', 'made by the run\n')
    r.write('src/mine.ts', "the user's\n")
    RunJournal.for(r.dir).write(
      record(r, {
        baseSha: base,
        startHead: base,
        baseMoved: true,
        createdLocal: true,
        localBefore: null,
        worktreeChanged: true,
        commits: [mine],
        touched: ['src/new.ts', 'src']
      })
    )
    const recovery = await recoverRepository(r.dir)
    expect(recovery).toMatchObject({ verified: true, problems: [] })
    expect(r.git('rev-parse', 'main')).toBe(base)
    expect(r.git('branch', '--list', 'fix/7-x')).toBe('')
    expect(r.git('status', '--porcelain', '--untracked-files=all')).toBe('?? src/mine.ts')
  })

  it("leaves alone a base holding the user's commits, a branch it did not record creating, and the base itself", async () => {
    const r = repo()
    const base = r.git('rev-parse', 'HEAD')
    r.write('src/user.ts', "the user's\n")
    r.commitAll("the user's own commit")
    // The run's commit on top of one of the user's that the journal does not name.
    const runs = runCommit(r, 'HEAD', 'fix: the run')
    r.git('update-ref', 'refs/heads/main', runs)
    r.git('reset', '--hard', '-q')
    r.git('branch', 'fix/7-x', base)
    RunJournal.for(r.dir).write(
      record(r, {
        baseSha: base,
        startHead: base,
        baseMoved: true,
        createdLocal: true,
        // The intent record before `checkout -b`: nothing says the branch was absent.
        commits: [runs]
      })
    )
    const recovery = await recoverRepository(r.dir)
    expect(recovery).toMatchObject({ verified: true })
    if (!recovery?.verified) throw new Error('not verified')
    expect(r.git('rev-parse', 'main')).toBe(runs)
    expect(r.git('rev-parse', 'fix/7-x')).toBe(base)
    expect(recovery.done.join('; ')).toMatch(/left main alone.*left the branch fix\/7-x alone/)

    RunJournal.for(r.dir).write(
      record(r, {
        branch: 'main',
        base: 'dev',
        createdLocal: true,
        localBefore: null,
        commits: [runs]
      })
    )
    await recoverRepository(r.dir)
    expect(r.git('rev-parse', 'main')).toBe(runs)
  })
})

describe('the run lock', () => {
  it('is released only by the run that holds it; a pid-1 lock is taken over', () => {
    const r = repo()
    const file = join(r.dir, '.git/patchsmith/lock')
    const lock = RunLock.acquire(r.dir)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      pid: process.pid,
      startTime: expect.stringMatching(/^\d+$/),
      runId: expect.any(String)
    })
    expect(() => RunLock.acquire(r.dir)).toThrow(/Another Patchsmith run/)
    writeFileSync(file, JSON.stringify({ pid: 1, started: 'then' }))
    lock.release()
    expect(existsSync(file)).toBe(true)
    const next = RunLock.acquire(r.dir)
    expect(next.replaced?.why).toBe('it records no start time for pid 1')
    next.release()
    expect(existsSync(file)).toBe(false)
  })
})
