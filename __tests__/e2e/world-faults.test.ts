/**
 * The world's faults are named for what they are, never INTERNAL_ERROR: GitHub's API failing
 * or rate-limiting (recoverable, saying when to retry), GraphQL errors, and a full disk.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { toAgentError } from '../../src/contract/index.js'
import { githubClient } from '../../src/github/index.js'
import { runAction, runCli, secretFlag } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { startGitHubServer } from '../support/github-server.js'
import { startModelServer } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { CAN_MOUNT, smallDiskCheckout } from '../support/small-disk.js'

const cleanups = cleanupAfterEach()
const PLAN = {
  branch_name: 'fix/9-note',
  plan_steps: ['Write the note'],
  file_changes: [{ path: 'note.txt', operation: 'MODIFY', description: 'a longer note' }],
  validation_commands: []
}

async function fetchIssueRun(answer: { status: number; headers?: Record<string, string> }) {
  const repo = createRepo({ files: { 'note.txt': 'short\n' }, prefix: 'faults' })
  cleanups.push(() => repo.cleanup())
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  github.route({
    method: 'GET',
    path: '/repos/acme/notes/issues/9',
    status: answer.status,
    headers: answer.headers,
    body: { message: answer.status === 403 ? 'API rate limit exceeded' : 'Service Unavailable' }
  })
  const files = writeInputs(repo, { 'fix-plan.json': PLAN })
  const run = await runActionInProcess({
    workspace: repo.dir,
    env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/notes' },
    inputs: {
      issue: '9',
      'fix-plan': files['fix-plan.json']!,
      'api-key': 'sk-test-faults',
      'base-url': 'http://127.0.0.1:9/v1',
      'github-token': 'ghs_faults000000000000000000000000000000',
      'require-actor-permission': 'none',
      'comment-on-failure': 'false'
    }
  })
  return { run, github }
}

describe("GitHub's faults", () => {
  it('a 5xx after the retries is GITHUB_API_ERROR, recoverable, naming the request', async () => {
    const { run, github } = await fetchIssueRun({ status: 503 })
    expect(run.outputs['error-code']).toBe('GITHUB_API_ERROR')
    expect(run.stdout).toContain("GitHub's API failed on GET /repos/acme/notes/issues/9 (503")
    expect(run.stdout).toContain('rerun later')
    expect(run.stdout).not.toContain('Stack trace')
    // Retried before giving up.
    expect(github.requests.filter((r) => r.path.endsWith('/issues/9')).length).toBeGreaterThan(1)
  })

  it('a rate limit that resets too late to wait for says when to rerun', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3600
    const { run } = await fetchIssueRun({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) }
    })
    expect(run.outputs['error-code']).toBe('GITHUB_API_ERROR')
    expect(run.stdout).toContain(`Rerun after ${new Date(reset * 1000).toISOString()}`)
  })

  it('a follow-up whose pull request GitHub cannot serve: GITHUB_API_ERROR, no stack (CLI and action)', async () => {
    const repo = createRepo({ files: { 'note.txt': 'short\n' }, prefix: 'faults-pr' })
    cleanups.push(() => repo.cleanup())
    const github = await startGitHubServer()
    cleanups.push(() => github.close())
    github.route({ method: 'GET', path: /^\/repos\/acme\/notes\/pulls\/12/, status: 502 })
    const env = { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/notes' }
    const cli = await runCli(
      [
        '--json',
        'follow-up',
        '--pr',
        '12',
        '--repo',
        repo.dir,
        ...secretFlag('--github-token-file', 'ghs_faults000000000000000000000000000000'),
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--no-push'
      ],
      { env: { ...env, OPENAI_API_KEY: 'sk-test-faults' } }
    )
    expect(cli.exitCode).toBe(1)
    expect(JSON.parse(cli.stdout).error).toMatchObject({
      code: 'GITHUB_API_ERROR',
      recoverable: true
    })
    expect(cli.stderr).not.toMatch(/\n\s+at /)
    const action = await runActionInProcess({
      workspace: repo.dir,
      env,
      inputs: {
        'follow-up': '12',
        'api-key': 'sk-test-faults',
        'base-url': 'http://127.0.0.1:9/v1',
        'github-token': 'ghs_faults000000000000000000000000000000',
        'require-actor-permission': 'none',
        push: 'false'
      }
    })
    expect(action.outputs['error-code']).toBe('GITHUB_API_ERROR')
    expect(action.stdout).not.toContain('Stack trace')
  })

  it('GraphQL errors are errors, not data', async () => {
    const github = await startGitHubServer()
    cleanups.push(() => github.close())
    github.route({
      method: 'POST',
      path: '/graphql',
      body: { data: null, errors: [{ type: 'FORBIDDEN', message: 'Resource not accessible' }] }
    })
    const client = await githubClient('ghs_x', { apiUrl: github.url })
    const error = await client.graphql('query { viewer { login } }').catch((e: unknown) => e)
    expect(toAgentError(error)).toMatchObject({
      code: 'GITHUB_API_ERROR',
      message: expect.stringContaining('FORBIDDEN') as string,
      recoverable: true
    })
  })
})

describe('a full disk', () => {
  it.skipIf(!CAN_MOUNT)(
    'is ENVIRONMENT_ERROR, recoverable, and the repository is left as it was',
    async () => {
      // A checkout on a 2 MiB tmpfs, filled up after it was made: git's writes fail as on a full runner.
      const disk = smallDiskCheckout(cleanups, { 'note.txt': 'short\n' })
      const server = await startModelServer(
        () => '--- a/note.txt\n+++ b/note.txt\n@@ -1 +1 @@\n-short\n+a longer note\n'
      )
      cleanups.push(() => server.close())
      const inputs = join(tmpdir(), `patchsmith-full-inputs-${process.pid}`)
      mkdirSync(inputs, { recursive: true })
      cleanups.push(() => rmSync(inputs, { recursive: true, force: true }))
      writeFileSync(
        join(inputs, 'issue.json'),
        JSON.stringify({ number: 9, title: 'Note', body: '' })
      )
      writeFileSync(join(inputs, 'plan.json'), JSON.stringify(PLAN))
      const before = disk.git('status', '--porcelain')
      disk.fill()
      const run = await runActionInProcess({
        workspace: disk.dir,
        inputs: {
          issue: join(inputs, 'issue.json'),
          'fix-plan': join(inputs, 'plan.json'),
          'base-url': server.url,
          'api-key': 'sk-test-full',
          'comment-on-failure': 'false'
        }
      })
      expect(run.outputs['error-code'], run.stdout).toBe('ENVIRONMENT_ERROR')
      expect(run.stdout).toContain('the disk is full')
      disk.free()
      expect(disk.git('status', '--porcelain')).toBe(before)
    }
  )

  it.skipIf(!CAN_MOUNT)(
    'under the overlay, filled by a validation command, is ENVIRONMENT_ERROR, never blamed on the base branch',
    async () => {
      // The temp folder on the checkout's disk: the overlay's folders must be on the tree's.
      const disk = smallDiskCheckout(cleanups, { 'note.txt': 'short\n' }, 16)
      const server = await startModelServer(
        () => '--- a/note.txt\n+++ b/note.txt\n@@ -1 +1 @@\n-short\n+a longer note\n'
      )
      cleanups.push(() => server.close())
      const [tmp, inputs] = ['tmp', 'inputs'].map((name) => join(disk.mountPoint, name))
      for (const folder of [tmp!, inputs!]) mkdirSync(folder)
      writeFileSync(join(inputs!, 'issue.json'), JSON.stringify({ number: 9, title: 'Note' }))
      writeFileSync(join(inputs!, 'plan.json'), JSON.stringify(PLAN))
      const run = await runAction({
        workspace: disk.dir,
        env: { TMPDIR: tmp!, RUNNER_TEMP: tmp! },
        inputs: {
          issue: join(inputs!, 'issue.json'),
          'fix-plan': join(inputs!, 'plan.json'),
          'validation-commands':
            'dd if=/dev/zero of=filler bs=4k 2>/dev/null; grep -q longer note.txt',
          'base-url': server.url,
          'api-key': 'sk-test-full',
          'comment-on-failure': 'false',
          settings: 'validation-overlay: true'
        }
      })
      expect(run.stdout).toContain('on an overlay of the work tree')
      expect(run.outputs['error-code'], run.stdout).toBe('ENVIRONMENT_ERROR')
      expect(run.stdout).toContain('the disk is full')
      expect(run.stdout).not.toMatch(/exited with 125|on the base branch/)
      // The filler was the overlay's, dropped with it; the checkout is as it was.
      expect(disk.git('status', '--porcelain', '--ignored')).toBe('')
    }
  )
})
