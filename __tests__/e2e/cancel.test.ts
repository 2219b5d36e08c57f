/**
 * A cancelled job, as the runner cancels it (SIGINT, then SIGTERM), through the bundled action:
 * while the model drafts, while validation runs, and while the branch is being pushed. Each run
 * ends CANCELLED with exit 130/143, the user's edits in place on the original branch, no stash,
 * no process left and no branch on origin; a rerun then succeeds.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { HostileOptions, HostileRun } from '../security/hostile-run.js'
import { trackedHostileRuns } from '../security/tracked-runs.js'
import {
  processesRunning,
  readmeModel,
  runOn,
  sleepMarker,
  slowGit,
  until,
  userWork,
  validationSleeping
} from './interrupted.js'

const SLEEP = sleepMarker()

const tracked = trackedHostileRuns()

function expectCancelled(hostile: HostileRun, exitCode: number): void {
  const { result, run, repo } = hostile
  expect(result.error?.code, JSON.stringify(result.error)).toBe('CANCELLED')
  expect(run.exitCode).toBe(exitCode)
  expect(run.outputs['error-code']).toBe('CANCELLED')
  expect(run.summary).toContain('CANCELLED')
  expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
  expect(readFileSync(join(repo.dir, 'src/a.js'), 'utf8')).toBe('export const a = 42 // mine\n')
  expect(readFileSync(join(repo.dir, 'notes.txt'), 'utf8')).toBe('my notes\n')
  expect(repo.git('status', '--porcelain')).toBe(' M src/a.js\n?? notes.txt')
  expect(repo.git('stash', 'list')).toBe('')
  expect(repo.git('branch', '--list', 'fix/5-hostile')).toBe('')
  expect(repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
}

async function cancelled(options: HostileOptions): Promise<HostileRun> {
  const hostile = await tracked({ setup: userWork, ...options })
  return hostile
}

describe('a cancelled run', () => {
  it('SIGTERM while the model drafts: CANCELLED, exit 143, everything as it was', async () => {
    // The model never answers: only the cancel can end the run.
    const hostile = await cancelled({
      reply: () => ({ hang: true }),
      signals: {
        when: (_repo, model) => until(() => model.requests.length > 0, 'the draft request'),
        send: ['SIGTERM']
      }
    })
    expectCancelled(hostile, 143)
  })

  it('SIGINT then SIGTERM while validation sleeps: the command dies with the run, exit 130', async () => {
    const sleep = sleepMarker()
    const marker = `sleep ${sleep}`
    const hostile = await cancelled({
      inputs: { 'validation-commands': `mkdir -p dist; touch dist/started.flag; ${marker}` },
      signals: {
        when: () => validationSleeping(sleep),
        send: ['SIGINT', 'SIGTERM'],
        gapMs: 100
      }
    })
    expectCancelled(hostile, 130)
    expect(processesRunning(marker)).toEqual([])
  })

  it('SIGTERM while the branch is pushed: the push finishes, then the branch is deleted', async () => {
    let flag = ''
    let push = { release: () => {} }
    const hostile = await cancelled({
      setup(repo) {
        userWork(repo)
        flag = join(repo.root, 'pushing.flag')
        push = slowGit(repo, flag, 'before-push')
      },
      env: (repo) => ({ PATH: `${join(repo.root, 'bin')}:${process.env.PATH ?? ''}` }),
      signals: {
        when: () => until(() => existsSync(flag), 'the push'),
        send: ['SIGTERM'],
        afterFirst: () => push.release()
      }
    })
    expectCancelled(hostile, 143)
    expect(hostile.result.error?.message).toContain('during the push')
  })

  // GitHub cancels a job with SIGINT, then SIGTERM 7.5 s later (then SIGKILL): the run must be
  // rolled back and gone on the SIGINT alone, so it ends with 130 at each point.
  const ACTIONS_SEQUENCE = { send: ['SIGINT', 'SIGTERM'] as NodeJS.Signals[], gapMs: 7_500 }
  it.each<[string, () => HostileOptions]>([
    [
      'while the model drafts',
      () => ({
        reply: () => ({ hang: true }),
        signals: {
          when: (_repo, model) => until(() => model.requests.length > 0, 'the draft request'),
          ...ACTIONS_SEQUENCE
        }
      })
    ],
    [
      'while validation sleeps',
      () => ({
        inputs: { 'validation-commands': `mkdir -p dist; touch dist/started.flag; sleep ${SLEEP}` },
        signals: {
          when: () => validationSleeping(SLEEP),
          ...ACTIONS_SEQUENCE
        }
      })
    ],
    [
      'after the commit, before the push',
      () => {
        let flag = ''
        let push = { release: () => {} }
        return {
          setup(repo) {
            userWork(repo)
            flag = join(repo.root, 'pushing.flag')
            push = slowGit(repo, flag, 'before-push')
          },
          env: (repo) => ({ PATH: `${join(repo.root, 'bin')}:${process.env.PATH ?? ''}` }),
          signals: {
            when: () => until(() => existsSync(flag), 'the push'),
            ...ACTIONS_SEQUENCE,
            afterFirst: () => push.release()
          }
        }
      }
    ]
  ])('the Actions sequence %s: rolled back on the SIGINT, exit 130', async (_when, options) => {
    const hostile = await cancelled(options())
    expectCancelled(hostile, 130)
    expect(processesRunning(`sleep ${SLEEP}`)).toEqual([])
  })

  it('leaves a repository on which the rerun succeeds', async () => {
    const first = await cancelled({
      reply: () => ({ hang: true }),
      signals: {
        when: (_repo, model) => until(() => model.requests.length > 0, 'the draft request'),
        send: ['SIGINT']
      }
    })
    expectCancelled(first, 130)
    // The same workspace, issue and plan, as a rerun of the job would have them.
    const { repo } = first
    const model = await readmeModel()
    try {
      const rerun = await runOn(repo, model.url, 'rerun.json')
      expect(rerun.exitCode, rerun.stdout).toBe(0)
      expect(repo.gitOrigin('diff', '--name-only', 'main', 'fix/5-hostile')).toBe('README.md')
      expect(readFileSync(join(repo.dir, 'src/a.js'), 'utf8')).toBe('export const a = 42 // mine\n')
    } finally {
      await model.close()
    }
  })
})

describe('runs that meet another run or an operation in progress', () => {
  it('refuses a merge in progress before anything is touched', async () => {
    const hostile = await cancelled({
      setup(repo) {
        repo.git('checkout', '-q', '-b', 'side')
        repo.write('side.txt', 'side\n')
        repo.git('add', 'side.txt')
        repo.git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'side')
        repo.git('checkout', '-q', 'main')
        repo.git(
          '-c',
          'user.name=t',
          '-c',
          'user.email=t@e',
          'merge',
          '-q',
          '--no-ff',
          '--no-commit',
          'side'
        )
      }
    })
    const { result, model, repo } = hostile
    expect(result.error).toMatchObject({
      code: 'GIT_CONFLICT',
      details: { rule: 'operation-in-progress', operation: 'merge' }
    })
    expect(model.requests).toHaveLength(0)
    expect(existsSync(join(repo.dir, '.git/MERGE_HEAD'))).toBe(true)
    expect(repo.git('status', '--porcelain')).toBe('A  side.txt')
  })

  it('lets one of two runs on one work tree work and refuses the other at once', async () => {
    const hostile = await cancelled({})
    const { repo } = hostile
    repo.git('push', '-q', 'origin', '--delete', 'fix/5-hostile')
    repo.git('checkout', '-q', 'main')
    repo.git('branch', '-q', '-D', 'fix/5-hostile')
    // The run that took the lock drafts only once the other has been refused (its result is
    // written): it holds the lock that long however slowly a loaded machine starts the other.
    const model = await readmeModel(() =>
      until(
        () => ['a.json', 'b.json'].some((name) => existsSync(join(repo.root, name))),
        'the other run to be refused'
      )
    )
    expect(['a.json', 'b.json'].filter((name) => existsSync(join(repo.root, name)))).toEqual([])
    try {
      const [a, b] = await Promise.all([
        runOn(repo, model.url, 'a.json'),
        runOn(repo, model.url, 'b.json')
      ])
      const results = [a, b].map((run) => run.outputs['error-code'] ?? '')
      expect(results.sort()).toEqual(['', 'GIT_CONFLICT'])
      const refused = JSON.parse(
        readFileSync(join(repo.root, a.exitCode === 0 ? 'b.json' : 'a.json'), 'utf8')
      )
      expect(refused.error.details.rule).toBe('run-in-progress')
      expect(repo.gitOrigin('diff', '--name-only', 'main', 'fix/5-hostile')).toBe('README.md')
      expect(readFileSync(join(repo.dir, 'src/a.js'), 'utf8')).toBe('export const a = 42 // mine\n')
      expect(repo.git('stash', 'list')).toBe('')
      expect(existsSync(join(repo.dir, '.git/patchsmith/lock'))).toBe(false)
    } finally {
      await model.close()
    }
  })

  it('refuses a missing API key first, before the repository, GitHub or a sandbox is touched', async () => {
    const hostile = await cancelled({
      inputs: { 'api-key': '', 'base-url': 'https://api.openai.com/v1' }
    })
    const { result, github, repo } = hostile
    expect(result.error).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'api-key' } })
    expect(result.metrics?.sandbox).toBeUndefined()
    // GitHub hears only the outcome: the run (by hand) tells it on its issue, nothing before.
    expect(github.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      expect.stringMatching(/^POST \/repos\/acme\/widgets\/issues\/\d+\/comments$/)
    ])
    expect(github.requests[0]!.body.body).toContain('`INVALID_INPUT`')
    expect(repo.git('status', '--porcelain')).toBe(' M src/a.js\n?? notes.txt')
  })

  it('takes over the lock of a run that is gone', async () => {
    const hostile = await cancelled({
      setup(repo) {
        userWork(repo)
        mkdirSync(join(repo.dir, '.git/patchsmith'))
        writeFileSync(
          join(repo.dir, '.git/patchsmith/lock'),
          JSON.stringify({ pid: 2 ** 22 + 1, started: '2026-01-01T00:00:00Z' })
        )
      }
    })
    expect(hostile.result.success, JSON.stringify(hostile.result.error)).toBe(true)
  })
})
