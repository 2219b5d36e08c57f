import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import MarkdownIt from 'markdown-it'
import { describe, expect, it } from 'vitest'
import type { AgentError, CodeAgentOutput, Commit } from '../../src/contract/index.js'
import {
  actionOutputs,
  collectArtifactFiles,
  diffStat,
  failureComment,
  statLine,
  summaryMarkdown,
  uploadArtifact
} from '../../src/report/index.js'
import { postFailureFeedback, type IssueFeedbackOptions } from '../../src/github/index.js'
import { startGitHubServer, type GitHubServer } from '../support/github-server.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const markdown = new MarkdownIt({ html: true })
type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number]

/** Tables as arrays of rows of cell texts, as a GFM renderer sees them. */
function tables(tokens: Token[]): string[][][] {
  const found: string[][][] = []
  let rows: string[][] | undefined
  let row: string[] | undefined
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token.type === 'table_open') rows = []
    else if (token.type === 'table_close') {
      found.push(rows!)
      rows = undefined
    } else if (token.type === 'tr_open') row = []
    else if (token.type === 'tr_close') rows!.push(row!)
    else if ((token.type === 'td_open' || token.type === 'th_open') && row)
      row.push(tokens[i + 1]?.content ?? '')
  }
  return found
}

const HOSTILE_DIFF =
  'diff --git a/docs/a b.md b/docs/a b.md\n--- a/docs/a b.md\n+++ b/docs/a b.md\n@@ -1,3 +1,4 @@\n # Title\n-old | pipe\n+new `tick` and ```fence```\n+<script>alert(1)</script>\n ```\n'
const CREATED =
  'diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n'
const DELETED =
  'diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n'

function commit(overrides: Partial<Commit> = {}): Commit {
  return {
    issue_number: 7,
    message: 'fix(docs): handle | pipes and `ticks` for @someone <b>now</b>\n\nFixes #7',
    diff: HOSTILE_DIFF + CREATED + DELETED,
    files_changed: ['docs/a b.md', 'new.txt', 'old.txt'],
    timestamp: '2026-01-01T00:00:00Z',
    validation_results: [
      {
        command: 'npm run `lint` | tee',
        exit_code: 0,
        stdout: 'ok',
        stderr: '',
        duration_ms: 1234
      },
      { command: 'npm test', exit_code: 0, stdout: '', stderr: '', duration_ms: 80, flaky: true }
    ],
    sha: 'a'.repeat(40),
    branch: 'fix/7-pipes',
    patch_id: 'b'.repeat(40),
    ...overrides
  }
}

const METRICS = {
  attempts: 2,
  repairs: 1,
  tokens: { prompt: 900, cached: 600, completion: 100, total: 1000, calls: 3 },
  cost: { usd: 0.00155 },
  git_processes: 7,
  duration_ms: 4200
}

describe('job summary', () => {
  it('renders a success as valid Markdown: outcome, files, validation, run, and the diff folded', () => {
    const response: CodeAgentOutput = { success: true, data: [commit()], metrics: METRICS }
    const text = summaryMarkdown(response, { issueNumber: 7, pushed: true })
    const tokens = markdown.parse(text, {})
    const found = tables(tokens)
    expect(found.map((table) => table[0]![0])).toEqual(['Outcome', 'File', 'Command', 'Measure'])
    const [outcome, files, validation, run] = found
    // Every row has as many cells as its header: no pipe or line break escaped the cells.
    for (const table of found) for (const row of table) expect(row).toHaveLength(table[0]!.length)
    expect(outcome).toContainEqual(['Branch', '`fix/7-pipes`'])
    expect(outcome).toContainEqual(['Where', 'pushed to origin'])
    expect(outcome).toContainEqual(['Files', '3 files changed, 4 insertions(+), 2 deletions(-)'])
    expect(files!.slice(1)).toEqual([
      ['`docs/a b.md`', 'modified', '2', '1'],
      ['`new.txt`', 'added', '2', '0'],
      ['`old.txt`', 'deleted', '0', '1']
    ])
    expect(validation!.slice(1).map((row) => row.slice(1))).toEqual([
      ['0', '1.2 s', '✅ passed'],
      ['0', '80 ms', '✅ passed (flaky)']
    ])
    expect(run).toContainEqual(['Tokens', '1000 (900 prompt, of which 600 cached, 100 completion)'])
    expect(run).toContainEqual(['Cost', '$0.00155'])
    expect(run).toContainEqual(['Attempts', '2'])
    expect(run).toContainEqual(['Git processes', '7'])
    const fences = tokens.filter((token) => token.type === 'fence')
    expect(fences).toHaveLength(1)
    expect(fences[0]!.info).toBe('diff')
    expect(fences[0]!.content).toBe(HOSTILE_DIFF + CREATED + DELETED)
    const html = tokens.filter((t) => t.type === 'html_block').map((t) => t.content)
    expect(html.join('')).toMatch(/<details><summary>Diff \(\d+ lines\)<\/summary>/)
    expect(html.join('')).toContain('</details>')
    // The commit message's HTML and mention are text, not markup or a notification.
    expect(markdown.render(text)).not.toContain('<b>now</b>')
    expect(text).not.toMatch(/@someone/)
  })

  it('says where a push: false commit waits, and that a dry run committed nothing', () => {
    const handoff = summaryMarkdown(
      { success: true, data: [commit()] },
      { pushed: false, base: 'main' }
    )
    expect(tables(markdown.parse(handoff, {}))[0]).toContainEqual([
      'Where',
      'not pushed: on `main` for the pull-request step'
    ])
    const dry = summaryMarkdown({ success: true, data: [commit({ sha: '', patch_id: '' })] })
    expect(dry).toMatch(/^## ✅ Patchsmith: validated \(dry run, nothing committed\)/)
  })

  it('renders a failure with what failed, the code, the validation table and the output folded', () => {
    const response: CodeAgentOutput = {
      success: false,
      error: {
        code: 'VALIDATION_FAILED',
        message: 'Validation failed: "npm test" exited with 1 after 2 attempt(s).',
        recoverable: false,
        details: {
          command: 'npm test',
          exit_code: 1,
          stderr: 'FAIL  test/a.test.js\n```\n| not a table |\nExpected 2, got 3',
          validation_results: [
            { command: 'npm test', exit_code: 1, stdout: '', stderr: 'x', duration_ms: 2100 }
          ]
        }
      },
      metrics: METRICS
    }
    const text = summaryMarkdown(response, { issueNumber: 7 })
    const tokens = markdown.parse(text, {})
    expect(text).toMatch(/^## ❌ Patchsmith: failed for #7 with `VALIDATION_FAILED`/)
    const [outcome, validation] = tables(tokens)
    expect(outcome).toContainEqual(['What failed', 'Validating the change: npm test exited with 1'])
    expect(outcome).toContainEqual(['Error code', '`VALIDATION_FAILED`'])
    expect(validation).toContainEqual(['`npm test`', '1', '2.1 s', '❌ failed'])
    const fence = tokens.find((token) => token.type === 'fence')
    expect(fence?.content).toContain('| not a table |')
    expect(fence?.content).toContain('Expected 2, got 3')
  })
})

describe('failure comment', () => {
  const error: AgentError = {
    code: 'PERMISSION_DENIED',
    message:
      'Push of "fix/7" was refused: ! [remote rejected] (pre-receive hook declined) @octocat',
    recoverable: false,
    details: {
      rule: 'push-hook-declined',
      stderr: 'remote: denied for ghs_SECRET\n```\n@maintainers please look'
    }
  }

  it('is a fixed template: what failed, the code, the output excerpt, mentions made inert', () => {
    const body = failureComment(error, {
      branch: 'fix/7',
      runUrl: 'https://github.com/acme/widgets/actions/runs/1'
    })
    const tokens = markdown.parse(body, {})
    const [facts] = tables(tokens)
    expect(facts).toContainEqual(['What failed', 'Pushing the branch (refused by a server hook)'])
    expect(facts).toContainEqual(['Error code', '`PERMISSION_DENIED`'])
    expect(facts).toContainEqual(['Branch', '`fix/7`, rolled back'])
    const fences = tokens.filter((token) => token.type === 'fence')
    expect(fences).toHaveLength(2)
    expect(fences[1]!.content).toContain('remote: denied')
    expect(body).not.toMatch(/@octocat|@maintainers/)
    expect(body).toContain('<!-- patchsmith:failure -->')
  })

  it('keeps long output to its last lines', () => {
    const long = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n')
    const body = failureComment({ ...error, details: { stderr: long } })
    expect(body).toContain('line 499')
    expect(body).not.toContain('line 100\n')
    expect(body.length).toBeLessThan(20_000)
  })
})

describe('diff stat', () => {
  it('counts lines per file, git style', () => {
    const stats = diffStat(CREATED + DELETED)
    expect(stats).toEqual([
      { path: 'new.txt', status: 'added', added: 2, removed: 0 },
      { path: 'old.txt', status: 'deleted', added: 0, removed: 1 }
    ])
    expect(statLine(stats)).toBe('2 files changed, 2 insertions(+), 1 deletion(-)')
  })
})

describe('outputs', () => {
  it('adds patch-id and pushed to every output', () => {
    const outputs = actionOutputs({ success: true, data: [commit()] }, '/r.json', 'fix/7-pipes', {
      pushed: true
    })
    expect(outputs).toMatchObject({
      'patch-id': 'b'.repeat(40),
      pushed: 'true',
      sha: 'a'.repeat(40)
    })
    const failed = actionOutputs(
      { success: false, error: { code: 'GIT_CONFLICT', message: 'x', recoverable: true } },
      '',
      'fix/7',
      { pushed: true }
    )
    expect(failed).toMatchObject({ 'patch-id': '', pushed: 'false', 'error-code': 'GIT_CONFLICT' })
  })
})

describe('artifact', () => {
  it('collects the result, the summary and the attempt logs (masked, links left out) under one root', () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchsmith-art-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, 'result.json'), '{"token":"ghs_CANARY"}\n')
    mkdirSync(join(dir, 'logs', 'nested'), { recursive: true })
    writeFileSync(join(dir, 'logs', '01-request.json'), '[]')
    writeFileSync(join(dir, 'logs', 'nested', '01-build.txt'), 'echo ghs_CANARY\n')
    symlinkSync('/etc/hostname', join(dir, 'logs', 'link.txt'))
    const staging = join(dir, 'staging')
    const files = collectArtifactFiles(
      [
        { path: join(dir, 'result.json'), name: 'result.json' },
        { name: 'summary.md', content: '## ok\n' },
        { path: join(dir, 'logs'), name: 'logs' },
        { path: join(dir, 'missing'), name: '../../escape' }
      ],
      { stagingDir: staging, mask: (text) => text.replace(/ghs_\w+/g, '***') }
    )
    expect(files.rootDirectory).toBe(staging)
    expect(files.files.map((file) => relative(staging, file)).sort()).toEqual([
      'logs/01-request.json',
      'logs/nested/01-build.txt',
      'result.json',
      'summary.md'
    ])
    expect(readFileSync(join(staging, 'result.json'), 'utf8')).toBe('{"token":"***"}\n')
    expect(readFileSync(join(staging, 'logs/nested/01-build.txt'), 'utf8')).toBe('echo ***\n')
    expect(existsSync(join(staging, 'logs', 'link.txt'))).toBe(false)
  })

  it('is skipped cleanly without ACTIONS_RUNTIME_TOKEN', async () => {
    const saved = process.env.ACTIONS_RUNTIME_TOKEN
    delete process.env.ACTIONS_RUNTIME_TOKEN
    cleanups.push(() => {
      if (saved !== undefined) process.env.ACTIONS_RUNTIME_TOKEN = saved
    })
    const outcome = await uploadArtifact('patchsmith-result', {
      rootDirectory: tmpdir(),
      files: []
    })
    expect(outcome).toEqual({
      uploaded: false,
      reason: expect.stringMatching(/ACTIONS_RUNTIME_TOKEN/)
    })
  })
})

describe('failure feedback through the GitHub API', () => {
  const defaults = {
    token: 'ghs_test',
    repository: 'acme/widgets',
    issueNumber: 7,
    label: 'automation-failed'
  }
  let options: IssueFeedbackOptions = defaults
  async function github(): Promise<GitHubServer> {
    const server = await startGitHubServer()
    cleanups.push(() => server.close())
    options = { ...defaults, client: { apiUrl: server.url } }
    return server
  }
  const posts = (server: GitHubServer, kind: string) =>
    server.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/issues/7/${kind}`))

  it('posts one comment and one label', async () => {
    const server = await github()
    expect(await postFailureFeedback(options, 'body')).toEqual([])
    expect(posts(server, 'comments').map((r) => r.body)).toEqual([{ body: 'body' }])
    expect(posts(server, 'labels').map((r) => r.body)).toEqual([{ labels: ['automation-failed'] }])
  })

  it('waits out a secondary rate limit (429 retry-after) and retries', async () => {
    const server = await github()
    server.route({
      method: 'POST',
      path: /\/comments$/,
      status: 429,
      headers: { 'retry-after': '1' },
      body: { message: 'You have exceeded a secondary rate limit' },
      times: 1
    })
    expect(await postFailureFeedback(options, 'body')).toEqual([])
    expect(posts(server, 'comments')).toHaveLength(2)
  })

  it('waits for the primary rate limit reset (403, x-ratelimit-remaining: 0) and retries', async () => {
    const server = await github()
    server.route({
      method: 'POST',
      path: /\/labels$/,
      status: 403,
      headers: {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000))
      },
      body: { message: 'API rate limit exceeded' },
      times: 1
    })
    expect(await postFailureFeedback(options, 'body')).toEqual([])
    expect(posts(server, 'labels')).toHaveLength(2)
  })

  it('retries a 5xx with backoff', async () => {
    const server = await github()
    server.route({
      method: 'POST',
      path: /\/comments$/,
      status: 502,
      body: { message: 'Bad gateway' },
      times: 1
    })
    expect(await postFailureFeedback(options, 'body')).toEqual([])
    expect(posts(server, 'comments')).toHaveLength(2)
  })

  it('reports a missing permission and a missing issue as sentences, without throwing', async () => {
    const server = await github()
    server.route({
      method: 'POST',
      path: /\/comments$/,
      status: 403,
      body: { message: 'Resource not accessible by integration' }
    })
    server.route({ method: 'POST', path: /\/labels$/, status: 404, body: { message: 'Not Found' } })
    const problems = await postFailureFeedback(options, 'body')
    expect(problems).toEqual([
      expect.stringMatching(
        /^comment: the token may not comment on issue #7 of acme\/widgets .*issues: write/
      ),
      expect.stringMatching(/^label: issue #7 of acme\/widgets was not found/)
    ])
    expect(posts(server, 'comments')).toHaveLength(1) // a 403 that is no rate limit is not retried
  })
})
