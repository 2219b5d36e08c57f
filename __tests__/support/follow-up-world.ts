import { readFileSync } from 'node:fs'
import { runActionInProcess } from './in-process.js'
import {
  startGitHubServer,
  type GitHubServer,
  type LoopbackPullRequest,
  type LoopbackThread
} from './github-server.js'
import { startModelServer, type ModelServer, type RecordedRequest } from './model-server.js'
import { createRepo, type TestRepo } from './repo.js'

/**
 * The world of a follow-up on Patchsmith's own pull request (e2e/follow-up-*.test.ts): the pull
 * request's branch and first commit, the review's replies, loopback GitHub and model servers,
 * and an in-process run of the action.
 */

export const BRANCH = 'fix/12-totals-ignore-quantities'
export const TOKEN = 'ghs_followuptoken000000000000000000000'
/** The pull request's first commit, as Patchsmith made it (signed off, its trailer last). */
export const FIRST =
  'docs: say what it does\n\nFixes #12\n\nSigned-off-by: Bot <bot@example.com>\nPatchsmith-Commit: validated'
export const TOTAL =
  'export function total(items) {\n  let sum = 0\n  for (const item of items) {\n    sum += item.price\n  }\n  return sum\n}\n'
export const FORMAT = 'export function money(value) {\n  return `$${value}`\n}\n'
export const CHECK = [
  "import { total } from './src/total.js'",
  "import { money } from './src/format.js'",
  "if (total([{ price: 2, quantity: 3 }]) !== 6) throw new Error('total ignores quantity')",
  "if (money(1.5) !== '$1.50') throw new Error('money is not rounded to cents')"
].join('\n')

export const REPLIES: Record<string, string> = {
  'src/total.js':
    '--- a/src/total.js\n+++ b/src/total.js\n@@ -3,3 +3,3 @@\n   for (const item of items) {\n-    sum += item.price\n+    sum += item.price * item.quantity\n   }\n',
  'src/format.js':
    '--- a/src/format.js\n+++ b/src/format.js\n@@ -1,3 +1,3 @@\n export function money(value) {\n-  return `$${value}`\n+  return `$${value.toFixed(2)}`\n }\n'
}

/** A review thread whose first comment is `body`, by `author` (a writer unless routed otherwise). */
export function thread(
  id: string,
  path: string,
  line: number,
  body: string,
  author = 'maintainer',
  extra: Partial<LoopbackThread> = {}
): LoopbackThread {
  return { id, path, line, comments: [{ body, author }], ...extra }
}

export const text = (request: RecordedRequest) => JSON.stringify(request.body?.messages ?? [])

/** What a test leaves to undo: the repositories and servers below are pushed onto it. */
type Cleanups = Array<() => unknown>

/** A repository on Patchsmith's pull request branch, pushed, with the PR known to GitHub. */
export function pullRequestRepo(
  cleanups: Cleanups,
  prefix: string,
  branch = BRANCH
): { repo: TestRepo; head: string } {
  const repo = createRepo({
    files: {
      'src/total.js': TOTAL,
      'src/format.js': FORMAT,
      'check.mjs': `${CHECK}\n`,
      'package.json': '{"type":"module"}\n'
    },
    prefix
  })
  cleanups.push(() => repo.cleanup())
  repo.git('checkout', '--quiet', '-b', branch)
  repo.write('README.md', 'Totals.\n')
  const head = repo.commitAll(FIRST)
  repo.git('push', '--quiet', 'origin', branch)
  return { repo, head }
}

export async function servers(
  cleanups: Cleanups,
  replies: Record<string, string> = REPLIES
): Promise<{ github: GitHubServer; model: ModelServer }> {
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  const model = await startModelServer((request) => {
    // A draft ends by asking for one file's diff (other files may be shown as context); a
    // file the test has no edit for needs none.
    const asked = /Write a unified diff for (\S+) /.exec(text(request))?.[1]
    if (!asked) return 'fix(src): address the review'
    return replies[asked] ?? 'NO_CHANGES'
  })
  cleanups.push(() => model.close())
  return { github, model }
}

export function pullRequest(
  github: GitHubServer,
  head: string,
  extra: Partial<LoopbackPullRequest> = {}
) {
  return github.pullRequest({
    number: 12,
    title: 'Totals ignore quantities',
    head: BRANCH,
    headSha: head,
    base: 'main',
    commits: [FIRST],
    files: ['README.md'],
    threads: [],
    ...extra
  })
}

export const run = (
  repo: TestRepo,
  github: GitHubServer,
  model: ModelServer,
  event?: { name: string; payload: object },
  inputs: Record<string, string> = {},
  env: Record<string, string> = {}
) =>
  runActionInProcess({
    workspace: repo.dir,
    ...(event ? { event: event.payload } : {}),
    env: {
      GITHUB_API_URL: github.url,
      ...(event ? { GITHUB_EVENT_NAME: event.name } : {}),
      ...env
    },
    inputs: {
      'follow-up': event ? 'true' : '12',
      'base-url': model.url,
      'api-key': 'sk-test-follow-up',
      'github-token': TOKEN,
      'validation-commands': 'node check.mjs',
      'output-path': `${repo.root}/result.json`,
      ...inputs
    }
  })
export const resultOf = (repo: TestRepo) =>
  JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8'))

/** pullRequestRepo and servers, their repositories and servers undone by `cleanups`. */
export function followUpWorld(cleanups: Cleanups) {
  return {
    pullRequestRepo: (prefix: string, branch?: string) => pullRequestRepo(cleanups, prefix, branch),
    servers: (replies?: Record<string, string>) => servers(cleanups, replies)
  }
}
