import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runActionInProcess } from '../support/in-process.js'
import { startGitHubServer, type GitHubServer } from '../support/github-server.js'
import {
  lastUserMessage,
  startModelServer,
  type ModelServer,
  type RecordedRequest
} from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

/*
 * Every write the run makes goes through the real node:fs; this file only counts the writes to
 * the result file. A run writes its result once, whatever its mode: the engine shapes, masks
 * and writes it at the end (no rewriting by a mode afterwards, no second write on a failure).
 */
const writes = vi.hoisted(() => ({ paths: [] as string[] }))
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>()
  const counted = ((path: Parameters<typeof fs.writeFileSync>[0], ...rest: unknown[]) => {
    if (typeof path === 'string') writes.paths.push(resolve(path))
    return (fs.writeFileSync as (...args: unknown[]) => void)(path, ...rest)
  }) as typeof fs.writeFileSync
  // A file opened for writing counts as written too (the result is written through a descriptor).
  const WRITING = fs.constants.O_WRONLY | fs.constants.O_RDWR
  const opened = ((
    path: Parameters<typeof fs.openSync>[0],
    flags?: unknown,
    ...rest: unknown[]
  ) => {
    const writing =
      typeof flags === 'number' ? (flags & WRITING) !== 0 : /^[wa]|\+/.test(String(flags ?? ''))
    if (typeof path === 'string' && writing) writes.paths.push(resolve(path))
    return (fs.openSync as (...args: unknown[]) => number)(path, flags, ...rest)
  }) as typeof fs.openSync
  const mocked = { writeFileSync: counted, openSync: opened }
  return { ...fs, default: { ...fs, ...mocked }, ...mocked }
})

const cleanups = cleanupAfterEach()
beforeEach(() => {
  writes.paths.length = 0
})

const writesOf = (path: string) => writes.paths.filter((written) => written === path).length

function repoWith(files: Record<string, string>, prefix: string): TestRepo {
  const repo = createRepo({ files, prefix })
  cleanups.push(() => repo.cleanup())
  return repo
}

async function model(reply: (request: RecordedRequest) => string): Promise<ModelServer> {
  const server = await startModelServer(reply)
  cleanups.push(() => server.close())
  return server
}

async function gitHub(): Promise<GitHubServer> {
  const server = await startGitHubServer()
  cleanups.push(() => server.close())
  return server
}

/** Whole-file drafts of `content` for any file; a commit subject when asked for one. */
function wholeFile(content: string) {
  return (request: RecordedRequest) => {
    const text = lastUserMessage(request)
    if (text.startsWith('Write the subject line')) return 'fix(greet): say hello to the name'
    const path = (/- Path: (\S+)/.exec(text) ?? /If (\S+) needs no further change/.exec(text))![1]!
    return `^^^${path}\n${content}^^^end\n`
  }
}

const ISSUE = { number: 7, title: 'Greet by name', body: 'greet() ignores the name.' }
const GREET = 'module.exports.greet = (name) => `Hello, ${name}!`\n'
const FILES = {
  'greet.js': 'module.exports.greet = () => "Hello"\n',
  'check.js': "if (require('./greet').greet('Ann') !== 'Hello, Ann!') process.exit(1)\n"
}

function resultOf(path: string): CodeAgentOutput {
  return JSON.parse(readFileSync(path, 'utf8')) as CodeAgentOutput
}

describe('the result file is written once per run', () => {
  it('a plan run that commits, and one that fails (rolled back, reported)', async () => {
    const repo = repoWith(FILES, 'once-plan')
    const server = await model(wholeFile(GREET))
    const inputs = writeInputs(repo, {
      'issue.json': ISSUE,
      'plan.json': {
        branch_name: 'fix/7-greet',
        plan_steps: ['Greet by name'],
        file_changes: [{ path: 'greet.js', operation: 'MODIFY' }],
        validation_commands: []
      }
    })
    const output = join(repo.root, 'result.json')
    const given = {
      issue: inputs['issue.json']!,
      'fix-plan': inputs['plan.json']!,
      'base-url': server.url,
      'api-key': 'sk-test-once',
      'edit-format': 'whole-file',
      'validation-commands': 'node check.js',
      'output-path': output
    }
    const run = await runActionInProcess({ workspace: repo.dir, inputs: given })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(resultOf(output).success).toBe(true)
    expect(writesOf(output)).toBe(1)

    // The branch exists now: the second run stops before drafting, in the engine's catch.
    writes.paths.length = 0
    const failed = await runActionInProcess({ workspace: repo.dir, inputs: given })
    expect(failed.exitCode).toBe(1)
    expect(resultOf(output).success).toBe(false)
    expect(writesOf(output)).toBe(1)
  })

  it('a task-file run', async () => {
    const repo = repoWith(FILES, 'once-tasks')
    const server = await model(wholeFile(GREET))
    writeFileSync(
      join(repo.root, 'tasks.md'),
      '# Tasks\n\nBranch: feat/7-greet\n\n- [ ] T001 Greet by name in greet.js\n'
    )
    writeFileSync(join(repo.root, 'issue.json'), JSON.stringify(ISSUE))
    const output = join(repo.root, 'result.json')
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        'task-file': join(repo.root, 'tasks.md'),
        issue: join(repo.root, 'issue.json'),
        'base-url': server.url,
        'api-key': 'sk-test-once',
        'edit-format': 'whole-file',
        'validation-commands': 'node check.js',
        'output-path': output
      }
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    const result = resultOf(output)
    expect(result.data?.map((commit) => commit.files_changed)).toEqual([['greet.js']])
    expect(writesOf(output)).toBe(1)
  })

  it('a follow-up run (pushes and answers, then writes its own result shape)', async () => {
    const repo = repoWith(FILES, 'once-follow-up')
    const branch = 'fix/12-greet'
    const first =
      'fix: greet\n\nFixes #12\n\nSigned-off-by: Bot <bot@example.com>\nPatchsmith-Commit: validated'
    repo.git('checkout', '--quiet', '-b', branch)
    repo.write('README.md', 'Greets.\n')
    const head = repo.commitAll(first)
    repo.git('push', '--quiet', 'origin', branch)
    const github = await gitHub()
    github.pullRequest({
      number: 12,
      title: 'Greet',
      head: branch,
      headSha: head,
      base: 'main',
      commits: [first],
      files: ['README.md'],
      threads: [
        {
          id: 'T1',
          path: 'greet.js',
          line: 1,
          comments: [{ body: 'Greet the name it is given.', author: 'maintainer' }]
        }
      ]
    })
    const server = await model((request) => {
      const text = JSON.stringify(request.body?.messages ?? [])
      if (!/Write a unified diff for greet\.js /.test(text)) return 'fix(greet): greet the name'
      return '--- a/greet.js\n+++ b/greet.js\n@@ -1 +1 @@\n-module.exports.greet = () => "Hello"\n+module.exports.greet = (name) => `Hello, ${name}!`\n'
    })
    const output = join(repo.root, 'result.json')
    const run = await runActionInProcess({
      workspace: repo.dir,
      env: { GITHUB_API_URL: github.url },
      inputs: {
        'follow-up': '12',
        'base-url': server.url,
        'api-key': 'sk-test-once',
        'github-token': 'ghs_onceonlytoken00000000000000000000',
        'validation-commands': 'node check.js',
        'output-path': output
      }
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    const result = resultOf(output) as CodeAgentOutput & { follow_up?: unknown }
    expect(result.success).toBe(true)
    expect(result.follow_up).toBeDefined()
    expect(repo.gitOrigin('rev-parse', branch)).not.toBe(head)
    expect(writesOf(output)).toBe(1)
  })
})
