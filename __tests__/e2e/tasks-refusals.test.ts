import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type CodeAgentOutput } from '../../src/contract/index.js'
import { runCliInProcess } from '../support/in-process.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import {
  BRANCH,
  TASKS,
  GOOD,
  LFS_POINTER,
  script,
  runTasks,
  tasksWorld,
  tasksCliArgs
} from '../support/tasks-world.js'

/** What a task file is refused for before any model call, as one plan is. */

const cleanups = cleanupAfterEach()
const { tasksRepo, modelServer } = tasksWorld(cleanups)

describe('task files through the CLI', () => {
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
    const run = await runCliInProcess([...tasksCliArgs(repo, server)], { cwd: repo.root })
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
