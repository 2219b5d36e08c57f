/**
 * A run killed where no handler runs (SIGKILL, as the runner's last word or a dead machine),
 * through the bundled action: while the model drafts, while validation sleeps, and right after
 * the push. No result is written; the journal in .git/patchsmith says what to undo, and the next
 * run (or `patchsmith recover`) puts the repository back before anything else.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { HostileOptions, HostileRun } from '../security/hostile-run.js'
import { trackedHostileRuns } from '../security/tracked-runs.js'
import { runCli } from '../support/action-runner.js'
import type { TestRepo } from '../support/repo.js'
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

const MINE = 'export const a = 42 // mine\n'

async function killed(options: HostileOptions): Promise<HostileRun> {
  const hostile = await tracked({ setup: userWork, ...options })
  expect(hostile.run.exitCode).toBe(137)
  expect(existsSync(join(hostile.repo.root, 'result.json'))).toBe(false)
  return hostile
}

/** The user's work in place on the branch they were on, and nothing of the killed run left. */
function expectRestored(repo: TestRepo): void {
  expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
  expect(readFileSync(join(repo.dir, 'src/a.js'), 'utf8')).toBe(MINE)
  expect(repo.git('status', '--porcelain')).toBe(' M src/a.js\n?? notes.txt')
  expect(repo.git('stash', 'list')).toBe('')
  expect(repo.git('branch', '--list', 'fix/5-hostile')).toBe('')
  expect(repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
  expect(existsSync(join(repo.dir, '.git/patchsmith/journal.json'))).toBe(false)
  expect(existsSync(join(repo.dir, '.git/patchsmith/lock'))).toBe(false)
}

const points: Array<[string, () => HostileOptions]> = [
  [
    'while the model drafts',
    () => ({
      reply: () => ({ hang: true }),
      signals: {
        when: (_repo, model) => until(() => model.requests.length > 0, 'the draft request'),
        send: ['SIGKILL']
      }
    })
  ],
  [
    'while validation sleeps',
    () => ({
      inputs: {
        'validation-commands': `mkdir -p dist; touch dist/started.flag; sleep ${SLEEP}`
      },
      signals: {
        when: () => validationSleeping(SLEEP),
        send: ['SIGKILL']
      }
    })
  ],
  [
    'right after the push',
    () => {
      let flag = ''
      return {
        setup(repo) {
          userWork(repo)
          flag = join(repo.root, 'pushed.flag')
          slowGit(repo, flag, 'after-push')
        },
        env: (repo) => ({ PATH: `${join(repo.root, 'bin')}:${process.env.PATH ?? ''}` }),
        signals: { when: () => until(() => existsSync(flag), 'the push'), send: ['SIGKILL'] }
      }
    }
  ]
]

describe('a run killed with SIGKILL', () => {
  it.each(points)('%s: the rerun restores the repository first, then succeeds', async (_, at) => {
    const first = await killed(at())
    const { repo } = first
    await until(() => processesRunning(SLEEP).length === 0, 'the command to end')
    const model = await readmeModel()
    try {
      const rerun = await runOn(repo, model.url, 'rerun.json')
      expect(rerun.exitCode, rerun.stdout).toBe(0)
      expect(repo.gitOrigin('diff', '--name-only', 'main', 'fix/5-hostile')).toBe('README.md')
      expect(readFileSync(join(repo.dir, 'src/a.js'), 'utf8')).toBe(MINE)
      expect(readFileSync(join(repo.dir, 'notes.txt'), 'utf8')).toBe('my notes\n')
      expect(repo.git('stash', 'list')).toBe('')
      expect(existsSync(join(repo.dir, '.git/patchsmith/journal.json'))).toBe(false)
    } finally {
      await model.close()
    }
  })

  it('right after the push: `patchsmith recover` deletes the pushed branch and puts the work back', async () => {
    const first = await killed(points[2]![1]())
    const { repo } = first
    expect(repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toContain('fix/5-hostile')
    expect(existsSync(join(repo.dir, '.git/patchsmith/journal.json'))).toBe(true)
    const recovered = await runCli(['recover', '--repo', repo.dir])
    expect(recovered.exitCode, recovered.stderr).toBe(0)
    expect(recovered.stderr).toMatch(
      /Recovered after the run of pid \d+ .*deleted the branch fix\/5-hostile on origin/
    )
    expectRestored(repo)
    const again = await runCli(['recover', '--repo', repo.dir])
    expect(again.stderr).toContain('Nothing to recover')
  })

  it('while validation sleeps: the next run says it restored the repository', async () => {
    const first = await killed(points[1]![1]())
    const { repo } = first
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('fix/5-hostile')
    const model = await readmeModel()
    try {
      const rerun = await runOn(repo, model.url, 'rerun.json')
      expect(rerun.stdout).toMatch(
        /An earlier run \(pid \d+, .*branch fix\/5-hostile\) ended without cleaning up; restored the repository first: checked out main; .*deleted the branch fix\/5-hostile; put the uncommitted changes back/
      )
    } finally {
      await model.close()
    }
  })

  it('a task-file run while a task validates: `patchsmith recover` puts the work back', async () => {
    const first = await killed({
      setup(repo) {
        userWork(repo)
        writeFileSync(
          join(repo.root, 'tasks.md'),
          '# Tasks\n\nBranch: feat/5-tasks\n\n- [ ] T001 Add an exclamation mark in README.md\n'
        )
      },
      inputs: {
        'fix-plan': '',
        'task-file': '../tasks.md',
        'validation-commands': `mkdir -p dist; touch dist/started.flag; sleep ${SLEEP}`
      },
      signals: {
        when: () => validationSleeping(SLEEP),
        send: ['SIGKILL']
      }
    })
    const { repo } = first
    expect(existsSync(join(repo.dir, '.git/patchsmith/journal.json'))).toBe(true)
    expect(repo.git('stash', 'list')).not.toBe('')
    const recovered = await runCli(['recover', '--repo', repo.dir])
    expect(recovered.exitCode, recovered.stderr).toBe(0)
    expectRestored(repo)
    expect(repo.git('branch', '--list', 'feat/5-tasks*')).toBe('')
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe(
      repo.gitOrigin('show', 'main:README.md') + '\n'
    )
  })
})
