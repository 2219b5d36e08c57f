/**
 * Checkouts whose work tree holds CRLF while git stores LF (core.autocrlf, eol=crlf, text=auto),
 * with mixed endings, and files committed with CRLF: the edit lands, the committed blob follows
 * the repository's attributes, and the work tree keeps its endings.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { runOnPlan } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const REPLY = '--- a/list.txt\n+++ b/list.txt\n@@ -1,3 +1,3 @@\n apple\n-banana\n+cherry\n melon\n'

interface Case {
  name: string
  files: Record<string, string>
  config?: Record<string, string>
  /** The blob git should commit, and the work tree file after the run. */
  committed: string
  worktree: string
}

const CASES: Case[] = [
  {
    name: 'core.autocrlf=true',
    files: { 'list.txt': 'apple\nbanana\nmelon\n' },
    config: { 'core.autocrlf': 'true' },
    committed: 'apple\ncherry\nmelon\n',
    worktree: 'apple\r\ncherry\r\nmelon\r\n'
  },
  {
    name: 'eol=crlf in .gitattributes',
    files: { '.gitattributes': '*.txt text eol=crlf\n', 'list.txt': 'apple\nbanana\nmelon\n' },
    committed: 'apple\ncherry\nmelon\n',
    worktree: 'apple\r\ncherry\r\nmelon\r\n'
  },
  {
    name: 'text=auto with core.autocrlf=true',
    files: { '.gitattributes': '* text=auto\n', 'list.txt': 'apple\nbanana\nmelon\n' },
    config: { 'core.autocrlf': 'true' },
    committed: 'apple\ncherry\nmelon\n',
    worktree: 'apple\r\ncherry\r\nmelon\r\n'
  },
  {
    name: 'a file committed with mixed endings (kept as committed)',
    files: { 'list.txt': 'apple\r\nbanana\r\nmelon\n' },
    committed: 'apple\r\ncherry\r\nmelon\n',
    worktree: 'apple\r\ncherry\r\nmelon\n'
  },
  {
    name: 'a file committed with CRLF and no conversion',
    files: { 'list.txt': 'apple\r\nbanana\r\nmelon\r\n' },
    committed: 'apple\r\ncherry\r\nmelon\r\n',
    worktree: 'apple\r\ncherry\r\nmelon\r\n'
  },
  {
    name: 'a file committed with CRLF under core.autocrlf=true (safe: kept as committed)',
    files: { 'list.txt': 'apple\r\nbanana\r\nmelon\r\n' },
    config: { 'core.autocrlf': 'true' },
    committed: 'apple\r\ncherry\r\nmelon\r\n',
    worktree: 'apple\r\ncherry\r\nmelon\r\n'
  }
]

function checkout(testCase: Case): TestRepo {
  const repo = createRepo({ files: testCase.files, prefix: 'eol' })
  cleanups.push(() => repo.cleanup())
  for (const [key, value] of Object.entries(testCase.config ?? {})) repo.git('config', key, value)
  // The work tree as a checkout with these settings writes it.
  rmSync(join(repo.dir, 'list.txt'))
  repo.git('checkout', '--', 'list.txt')
  return repo
}

describe('checkouts with CRLF line endings', () => {
  it.each(CASES)('$name: lands, commits per the attributes, keeps the work tree', async (c) => {
    const repo = checkout(c)
    const server = await startModelServer((request) =>
      JSON.stringify(request.body).includes('list.txt')
        ? REPLY
        : 'fix(list): replace the banana with a cherry'
    )
    cleanups.push(() => server.close())
    const run = await runOnPlan(repo, {
      issue: { number: 4, title: 'No bananas', body: 'Cherries instead.' },
      plan: {
        branch_name: 'fix/4-cherry',
        plan_steps: ['Replace banana'],
        file_changes: [{ path: 'list.txt', operation: 'MODIFY', description: 'cherry' }],
        validation_commands: ['grep -q cherry list.txt']
      },
      inputs: {
        'base-url': server.url,
        'api-key': 'sk-test-eol',
        'allow-plan-commands': 'true'
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    // One draft and the commit message: no retry was needed.
    expect(server.requests).toHaveLength(2)
    const sha = run.outputs.sha!
    const blob = execFileSync('git', ['cat-file', 'blob', `${sha}:list.txt`], { cwd: repo.origin })
    expect(blob.toString('utf8')).toBe(c.committed)
    expect(readFileSync(join(repo.dir, 'list.txt'), 'utf8')).toBe(c.worktree)
    expect(repo.git('status', '--porcelain')).toBe('')
    // The reported diff applies to the base as git stores it.
    const [commit] = JSON.parse(run.outputs.commits!)
    const patch = join(repo.root, 'commit.diff')
    writeFileSync(patch, commit.diff)
    repo.git('read-tree', `${sha}~1`)
    repo.git('apply', '--check', '--cached', patch)
  })
})
