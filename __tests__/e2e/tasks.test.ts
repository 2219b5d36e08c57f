import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput, Commit } from '../../src/contract/index.js'
import { runCli, secretFlag } from '../support/action-runner.js'
import { runActionInProcess, runCliInProcess } from '../support/in-process.js'
import {
  lastUserMessage,
  startModelServer,
  type ModelServer,
  type RecordedRequest
} from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { COMMIT_SUBJECT } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { until } from '../support/until.js'

const cleanups = cleanupAfterEach()

const BRANCH = 'feat/7-greetings'
const ISSUE = { number: 7, title: 'Greeting helpers', body: 'We need a few string helpers.' }

const TASKS = `# Tasks: greeting helpers

Branch: ${BRANCH}

## Phase 1
- [ ] T001 Create the greeting helper in src/greet.js
- [x] T000 Set up the project (done earlier)

## Phase 2
- [ ] T002 [P] Add a farewell helper in src/farewell.js (after T001)
- [ ] T003 [P] Add a shout helper in \`src/shout.js\` (after T001)
  - it upper-cases its argument
- [ ] T004 Export every helper from src/index.js (after T002, T003)
- [ ] T005 Document the helpers in README.md
`

/** The new content of each file, as the model writes it. */
const GOOD: Record<string, string> = {
  'src/greet.js': 'module.exports.greet = (name) => `Hello, ${name}!`\n',
  'src/farewell.js': 'module.exports.farewell = (name) => `Goodbye, ${name}!`\n',
  'src/shout.js': 'module.exports.shout = (text) => text.toUpperCase()\n',
  'src/index.js':
    "module.exports = { ...require('./greet'), ...require('./farewell'), ...require('./shout') }\n",
  'README.md': '# Helpers\n\ngreet, farewell and shout.\n'
}

/**
 * The model: whole-file drafts by the plan's path; commit subjects by the task's title. Drafts
 * of `together` are answered only once each of them has been asked (so drafts sent side by side
 * overlap however slow the machine; asked one by one, they wait out until()'s deadline, to fail).
 */
function script(
  files: Record<string, string>,
  delays: Record<string, number> = {},
  together: string[] = []
) {
  const asked = new Set<string>()
  return async (request: RecordedRequest) => {
    const text = lastUserMessage(request)
    if (text.startsWith('Write the subject line')) {
      const files = /Files changed: (.*)/.exec(text)![1]!
      return `feat(helpers): add ${files.replace(/^src\//, '')} for the greeting helpers`
    }
    // A repair request names its file in "If <path> needs no further change".
    const path = (/- Path: (\S+)/.exec(text) ?? /If (\S+) needs no further change/.exec(text))![1]!
    if (together.includes(path)) {
      asked.add(path)
      await until(
        () => together.every((other) => asked.has(other)),
        'the drafts asked together'
      ).catch(() => undefined)
    }
    return { content: `^^^${path}\n${files[path]}^^^end\n`, delayMs: delays[path] ?? 0 }
  }
}

function tasksRepo(): TestRepo {
  const repo = createRepo({
    files: {
      'README.md': '# Helpers\n',
      // Loads every module: a broken helper fails validation.
      'check.js':
        "for (const f of require('fs').readdirSync('src')) require('./src/' + f)\nconsole.log('ok')\n",
      'src/.keep': ''
    },
    prefix: 'tasks'
  })
  cleanups.push(() => repo.cleanup())
  writeFileSync(join(repo.root, 'tasks.md'), TASKS)
  writeFileSync(join(repo.root, 'issue.json'), JSON.stringify(ISSUE))
  return repo
}

async function modelServer(s: Parameters<typeof startModelServer>[0]): Promise<ModelServer> {
  const server = await startModelServer(s)
  cleanups.push(() => server.close())
  return server
}

function draftOf(server: ModelServer, path: string): RecordedRequest[] {
  return server.requests.filter((r) => lastUserMessage(r).includes(`- Path: ${path}\n`))
}

function pushedSubjects(repo: TestRepo, base: string): string[] {
  return repo.gitOrigin('log', '--reverse', '--format=%s', `${base}..${BRANCH}`).split('\n')
}

interface TaskMetric {
  id: string
  status: string
  line: number
  sha?: string
  blocked_by?: string
  error?: { code: string }
}

const LFS_POINTER =
  'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n'

/** The task file and issue of tasksRepo, as the action runs them (push: true, whole files). */
function runTasks(repo: TestRepo, server: ModelServer, event?: object) {
  return runActionInProcess({
    workspace: repo.dir,
    ...(event ? { event } : {}),
    inputs: {
      'task-file': join(repo.root, 'tasks.md'),
      issue: join(repo.root, 'issue.json'),
      'base-url': server.url,
      'api-key': 'sk-test-tasks',
      'edit-format': 'whole-file',
      'validation-commands': 'node check.js',
      'comment-on-failure': 'false',
      'output-path': join(repo.root, 'result.json')
    }
  })
}

describe('task files through the action', () => {
  it('runs 5 tasks in dependency order, drafts the [P] pair together, one commit per task', async () => {
    const repo = tasksRepo()
    const base = repo.git('rev-parse', 'HEAD')
    const server = await modelServer(script(GOOD, {}, ['src/farewell.js', 'src/shout.js']))
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        'task-file': join(repo.root, 'tasks.md'),
        issue: join(repo.root, 'issue.json'),
        'base-url': server.url,
        'api-key': 'sk-test-tasks',
        'edit-format': 'whole-file',
        'validation-commands': 'node check.js',
        'output-path': join(repo.root, 'result.json')
      }
    })
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
    const [farewell] = draftOf(server, 'src/farewell.js')
    const [shout] = draftOf(server, 'src/shout.js')
    expect(farewell!.startedAt).toBeLessThan(shout!.endedAt!)
    expect(shout!.startedAt).toBeLessThan(farewell!.endedAt!)
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
        '--json',
        'run',
        '--repo',
        repo.dir,
        '--tasks',
        join(repo.root, 'tasks.md'),
        '--issue',
        join(repo.root, 'issue.json'),
        '--base-url',
        server.url,
        ...secretFlag('--api-key-file', 'sk-test-tasks'),
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
        '--json',
        'run',
        '--repo',
        repo.dir,
        '--tasks',
        'tasks.md',
        '--issue',
        'issue.json',
        '--base-url',
        server.url,
        ...secretFlag('--api-key-file', 'sk-test-tasks'),
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

  it('refuses a task on a Git LFS pointer before any model call, as one plan does', async () => {
    const repo = tasksRepo()
    repo.write('assets/logo.png', LFS_POINTER)
    const base = repo.commitAll('add the logo')
    repo.git('push', '--quiet', 'origin', 'main')
    writeFileSync(
      join(repo.root, 'tasks.md'),
      `# Tasks\n\nBranch: ${BRANCH}\n\n- [ ] T001 Brighten the logo in assets/logo.png\n`
    )
    const server = await modelServer(script(GOOD))
    const run = await runTasks(repo, server)
    expect(run.outputs['error-code']).toBe('INVALID_INPUT')
    expect(run.stdout).toContain('"assets/logo.png": it is a Git LFS pointer')
    expect(server.requests).toHaveLength(0)
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.git('branch', '--list')).toBe('* main')
  })

  it("refuses a task file's branch that is the repository's default branch (the event's), before any model call", async () => {
    const repo = tasksRepo()
    writeFileSync(
      join(repo.root, 'tasks.md'),
      TASKS.replace(`Branch: ${BRANCH}`, 'Branch: release')
    )
    const server = await modelServer(script(GOOD))
    const run = await runTasks(repo, server, {
      repository: { full_name: 'acme/widgets', default_branch: 'release' }
    })
    expect(run.outputs['error-code']).toBe('INVALID_INPUT')
    const result = JSON.parse(
      readFileSync(join(repo.root, 'result.json'), 'utf8')
    ) as CodeAgentOutput
    expect(result.error!.details).toMatchObject({ field: 'task-file', rule: 'base-branch' })
    expect(server.requests).toHaveLength(0)
    expect(repo.git('branch', '--list')).toBe('* main')
    expect(repo.gitOrigin('branch', '--list', 'release')).toBe('')
  })

  it('refuses a malformed task line with its line number before anything is asked or written', async () => {
    const repo = tasksRepo()
    const base = repo.git('rev-parse', 'HEAD')
    writeFileSync(
      join(repo.root, 'tasks.md'),
      '# Tasks\n\n- [ ] T001 Create src/a.js\n- [ ] T02 Create src/b.js\n'
    )
    const server = await modelServer(script(GOOD))
    const run = await runCliInProcess(
      [
        '--json',
        'run',
        '--repo',
        repo.dir,
        '--tasks',
        'tasks.md',
        '--issue',
        'issue.json',
        '--base-url',
        server.url,
        ...secretFlag('--api-key-file', 'sk-test-tasks')
      ],
      { cwd: repo.root }
    )
    expect(run.exitCode).toBe(1)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { field: 'task-file', line: 4, rule: 'id-format' }
    })
    expect(result.error?.message).toMatch(/^Task file line 4: "T02" is not a task id/)
    expect(server.requests).toHaveLength(0)
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
    expect(repo.git('branch', '--list')).toBe('* main')
  })
})
