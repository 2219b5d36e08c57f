import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type CodeAgentOutput, type Commit } from '../../src/contract/index.js'
import { runCli } from '../support/action-runner.js'
import { runActionInProcess, runCliInProcess } from '../support/in-process.js'
import { lastUserMessage } from '../support/model-server.js'
import { COMMIT_SUBJECT } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import {
  BRANCH,
  GOOD,
  script,
  draftOf,
  pushedSubjects,
  type TaskMetric,
  tasksWorld,
  tasksCliArgs,
  runTasks
} from '../support/tasks-world.js'

/** Task files run whole: dependency order, [P] pairs, failing tasks, stacked commits. */

const cleanups = cleanupAfterEach()
const { tasksRepo, modelServer } = tasksWorld(cleanups)

describe('task files through the action', () => {
  it('runs 5 tasks in dependency order, drafts the [P] pair together, one commit per task', async () => {
    const repo = tasksRepo()
    const base = repo.git('rev-parse', 'HEAD')
    const server = await modelServer(script(GOOD, {}, ['src/farewell.js', 'src/shout.js']))
    const run = await runTasks(repo, server)
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    const result = JSON.parse(
      readFileSync(join(repo.root, 'result.json'), 'utf8')
    ) as CodeAgentOutput
    expect(result.success).toBe(true)
    const commits = result.data!
    expect(commits.map((c) => c.files_changed)).toEqual([
      ['src/greet.js'],
      ['src/farewell.js'],
      ['src/shout.js'],
      ['src/index.js'],
      ['README.md']
    ])
    for (const commit of commits) {
      expect(commit.branch).toBe(BRANCH)
      expect(commit.issue_number).toBe(7)
      expect(commit.message.split('\n')[0]).toMatch(COMMIT_SUBJECT)
      expect(commit.message).toContain('Fixes #7')
      expect(commit.validation_results.map((r) => r.exit_code)).toEqual([0])
    }
    // Each commit is its own unit on the pushed branch, in the order the tasks ran.
    const shas = repo.gitOrigin('rev-list', '--reverse', `${base}..${BRANCH}`).split('\n')
    expect(shas).toEqual(commits.map((c) => c.sha))
    expect(pushedSubjects(repo, base)).toHaveLength(5)
    expect(repo.gitOrigin('show', `${BRANCH}:src/index.js`)).toBe(GOOD['src/index.js']!.trimEnd())
    expect(run.outputs.sha).toBe(shas[4])
    // The [P] pair overlapped at the model server; T004 was asked only after both committed.
    // The script holds the first draft of the pair until the second is asked, so both were in
    // flight at once exactly when they were sent side by side (milliseconds could tie).
    const [farewell] = draftOf(server, 'src/farewell.js')
    const [shout] = draftOf(server, 'src/shout.js')
    expect(server.maxConcurrent).toBe(2)
    const [index] = draftOf(server, 'src/index.js')
    expect(index!.startedAt).toBeGreaterThanOrEqual(Math.max(farewell!.endedAt!, shout!.endedAt!))
    // The draft of T004 saw the files T002 and T003 created (CREATE: index.js; the rest exist).
    expect(lastUserMessage(index!)).toContain('Operation: CREATE')
    const [readme] = draftOf(server, 'README.md')
    expect(lastUserMessage(readme!)).toContain('Operation: MODIFY')
    const tasks = (result.metrics as { tasks: TaskMetric[] }).tasks
    expect(tasks.map((t) => [t.id, t.status])).toEqual([
      ['T000', 'done'],
      ['T001', 'committed'],
      ['T002', 'committed'],
      ['T003', 'committed'],
      ['T004', 'committed'],
      ['T005', 'committed']
    ])
    // Back on main, untouched; the work branch kept locally too.
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.git('branch', '--list', `${BRANCH}-t*`)).toBe('')
  })
})

describe('task files through the CLI', () => {
  it('keeps the [P] pair within concurrency: with 1, its drafts never overlap', async () => {
    const repo = tasksRepo()
    const server = await modelServer(script(GOOD, { 'src/farewell.js': 300, 'src/shout.js': 300 }))
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        'task-file': join(repo.root, 'tasks.md'),
        issue: join(repo.root, 'issue.json'),
        'base-url': server.url,
        'api-key': 'sk-test-tasks',
        'edit-format': 'whole-file',
        concurrency: '1',
        'output-path': join(repo.root, 'result.json')
      }
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toContain('together ([P])')
    // Each task's commit is reported once, without the temporary ref it went through.
    expect(run.stdout).not.toMatch(/-t00\d/)
    expect(run.stdout).not.toContain('Not pushed')
    expect(server.maxConcurrent).toBe(1)
    const [farewell] = draftOf(server, 'src/farewell.js')
    const [shout] = draftOf(server, 'src/shout.js')
    expect(shout!.startedAt).toBeGreaterThanOrEqual(farewell!.endedAt!)
    expect(pushedSubjects(repo, repo.git('rev-parse', 'HEAD'))).toHaveLength(5)
  })

  it('keeps the commits before a failing task, skips its dependents and runs the independent ones', async () => {
    const repo = tasksRepo()
    const base = repo.git('rev-parse', 'HEAD')
    const server = await modelServer(
      // It parses (the syntax gate passes it) and fails on load, as check.js requires each file.
      script({ ...GOOD, 'src/shout.js': 'module.exports.shout = shoutOf(text.toUpperCase)\n' })
    )
    const run = await runCli(
      [
        ...tasksCliArgs(repo, server, join(repo.root, 'tasks.md'), join(repo.root, 'issue.json')),
        '--edit-format',
        'whole-file',
        '--validation-command',
        'node check.js',
        '--max-repairs',
        '1'
      ],
      { cwd: repo.root }
    )
    expect(run.exitCode, run.stderr).toBe(1)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.success).toBe(false)
    expect(result.error?.code, run.stderr).toBe('VALIDATION_FAILED')
    expect(result.error?.message).toMatch(/T003 failed, T004 skipped; 3 task\(s\) committed/)
    const tasks = (result.metrics as { tasks: TaskMetric[] }).tasks
    expect(tasks.map((t) => [t.id, t.status])).toEqual([
      ['T000', 'done'],
      ['T001', 'committed'],
      ['T002', 'committed'],
      ['T003', 'failed'],
      ['T004', 'skipped'],
      ['T005', 'committed']
    ])
    expect(tasks.find((t) => t.id === 'T003')).toMatchObject({
      line: 11,
      error: { code: 'VALIDATION_FAILED' }
    })
    expect(tasks.find((t) => t.id === 'T004')?.blocked_by).toBe('T003')
    const commits = result.data as Commit[]
    expect(commits.map((c) => c.files_changed[0])).toEqual([
      'src/greet.js',
      'src/farewell.js',
      'README.md'
    ])
    // The partial progress is pushed; the failed task left nothing behind.
    const shas = repo.gitOrigin('rev-list', '--reverse', `${base}..${BRANCH}`).split('\n')
    expect(shas).toEqual(commits.map((c) => c.sha))
    expect(repo.gitOrigin('ls-tree', '--name-only', '-r', BRANCH)).not.toContain('src/shout.js')
    expect(draftOf(server, 'src/index.js')).toHaveLength(0)
    // Its draft and one repair (max-repairs 1); the same failure twice stops the task.
    expect(draftOf(server, 'src/shout.js')).toHaveLength(1)
    expect(
      server.requests.filter((r) => lastUserMessage(r).includes('If src/shout.js needs'))
    ).toHaveLength(1)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
  })

  it("--no-push stacks the tasks' commits on their branch and leaves main where it was", async () => {
    const repo = tasksRepo()
    const base = repo.git('rev-parse', 'main')
    const server = await modelServer(script(GOOD))
    const run = await runCliInProcess(
      [
        ...tasksCliArgs(repo, server),
        '--edit-format',
        'whole-file',
        '--validation-command',
        'node check.js',
        '--no-push'
      ],
      { cwd: repo.root }
    )
    expect(run.exitCode, run.stderr).toBe(0)
    const commits = (JSON.parse(run.stdout) as CodeAgentOutput).data as Commit[]
    expect(repo.git('rev-list', '--reverse', `${base}..${BRANCH}`).split('\n')).toEqual(
      commits.map((c) => c.sha)
    )
    expect(repo.git('rev-parse', 'main')).toBe(base)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
  })
})
