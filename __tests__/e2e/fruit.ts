import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runAction } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import {
  lastUserMessage,
  startModelServer,
  type ModelServer,
  type ReplyScript
} from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'

/*
 * The fruit scenario of the repair tests: the validation passes only for a kiwi, and every other
 * fruit fails with its own error line, so each attempt's failure can be told apart.
 */

// A shell script, not a node one: the check runs for every validation of the suite's many runs,
// and a node process costs about 70 ms of CPU where sh and its builtins cost about 1.
const CHECK = `read -r fruit < fruit.txt
if [ "$fruit" != kiwi ]; then echo "error: wrong fruit $fruit" >&2; exit 1; fi
echo 'fruit ok'
`
export const FRUIT_BRANCH = 'fix/3-fruit'

export function swap(from: string, to: string): string {
  return `--- a/fruit.txt\n+++ b/fruit.txt\n@@ -1 +1 @@\n-${from}\n+${to}\n`
}

/** Whether a request is the commit message call (one message asking for a Conventional Commit). */
export function isCommitMessageCall(request: Parameters<typeof lastUserMessage>[0]): boolean {
  return (
    lastUserMessage(request).includes('Conventional Commit') && request.body.messages.length === 1
  )
}

/** Replies in order of the draft calls; the commit message call gets a fixed subject. */
export function fruitReplies(diffs: string[]): ReplyScript {
  let draft = 0
  return (request) =>
    isCommitMessageCall(request)
      ? 'fix(fruit): serve the fruit the issue asks for'
      : (diffs[draft++] ?? 'no more scripted diffs')
}

export interface FruitRun {
  repo: TestRepo
  server: ModelServer
  exitCode: number
  result: CodeAgentOutput
  logDir: string
  stdout: string
  summary: string
  baseSha: string
}

export function fruitRepo(files: Record<string, string> = {}): TestRepo {
  return createRepo({
    files: { 'fruit.txt': 'apple\n', 'check.sh': CHECK, ...files },
    prefix: 'repair'
  })
}

/**
 * One run of the action, in process, on the fruit repository; the result file beside it.
 * `how.dist`: through dist/index.js in a process of its own; `how.user`: as that user (a
 * GitHub-hosted runner's, not root), the repository theirs for the run and root's again after;
 * `how.changes`: more planned file changes than fruit.txt's.
 */
export async function runOnFruit(
  repo: TestRepo,
  script: ReplyScript,
  inputs: Record<string, string> = {},
  env: Record<string, string> = {},
  how: {
    dist?: boolean
    user?: string
    changes?: Array<{ path: string; operation: 'CREATE' | 'MODIFY' }>
  } = {}
): Promise<FruitRun> {
  const server = await startModelServer(script)
  const paths = writeInputs(repo, {
    'issue.json': { number: 3, title: 'Serve the right fruit', body: 'We want a kiwi.' },
    'plan.json': {
      branch_name: FRUIT_BRANCH,
      plan_steps: ['Change the fruit'],
      file_changes: [{ path: 'fruit.txt', operation: 'MODIFY' }, ...(how.changes ?? [])],
      validation_commands: []
    }
  })
  const logDir = `${repo.root}/logs`
  const baseSha = repo.git('rev-parse', 'HEAD')
  if (how.user) {
    execFileSync('chown', ['-R', how.user, repo.root])
    // As a fresh checkout would be: the index's stat data the user's (chown changed each ctime).
    execFileSync('runuser', [
      '-u',
      how.user,
      '--',
      'git',
      '-C',
      repo.dir,
      'update-index',
      '-q',
      '--refresh'
    ])
  }
  try {
    const start = how.dist || how.user ? runAction : runActionInProcess
    const run = await start({
      workspace: repo.dir,
      env,
      user: how.user,
      timeoutMs: 120_000,
      inputs: {
        issue: paths['issue.json']!,
        'fix-plan': paths['plan.json']!,
        'base-url': server.url,
        'api-key': 'sk-test-repair',
        'validation-commands': 'sh check.sh',
        'output-path': `${repo.root}/result.json`,
        'log-dir': logDir,
        ...inputs
      }
    })
    const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
    return {
      repo,
      server,
      exitCode: run.exitCode,
      result,
      logDir,
      stdout: run.stdout,
      summary: run.summary,
      baseSha
    }
  } finally {
    if (how.user) execFileSync('chown', ['-R', '0:0', repo.root])
    await server.close()
  }
}

/** The fruit fix (kiwi for apple) through dist/, the sandbox required, on `backend`, as `user`. */
export function kiwiInJail(
  repo: TestRepo,
  backend: string,
  inputs: Record<string, string>,
  env: Record<string, string> = {},
  user?: string
): Promise<FruitRun> {
  return runOnFruit(
    repo,
    fruitReplies([swap('apple', 'kiwi')]),
    { sandbox: 'required', ...inputs },
    { PATCHSMITH_SANDBOX_BACKENDS: backend, ...env },
    { dist: true, user }
  )
}
