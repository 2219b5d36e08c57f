/**
 * A GITHUB_API_URL nothing answers at is the network's fault (or the URL's), not GitHub's: it is
 * not reported as a GitHub 500 with "rerun later (githubstatus.com)".
 */
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { runActionInProcess } from '../support/in-process.js'
import { createRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { writeInputs } from './scenario.js'

const cleanups = cleanupAfterEach()

/** A loopback port that was just free: nothing listens there, a connection is refused. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as { port: number }
  await new Promise((done) => server.close(done))
  return port
}

describe('an unreachable GITHUB_API_URL', () => {
  it('(connection refused) is reported as the network failure it is, naming the URL', async () => {
    const repo = createRepo({ files: { 'note.txt': 'short\n' }, prefix: 'faults-api-url' })
    cleanups.push(() => repo.cleanup())
    const files = writeInputs(repo, {
      'fix-plan.json': {
        branch_name: 'fix/9-note',
        plan_steps: ['Write the note'],
        file_changes: [{ path: 'note.txt', operation: 'MODIFY' }],
        validation_commands: []
      }
    })
    const url = `http://127.0.0.1:${await closedPort()}`
    const run = await runActionInProcess({
      workspace: repo.dir,
      env: { GITHUB_API_URL: url, GITHUB_REPOSITORY: 'acme/notes' },
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
    expect(run.outputs['error-code'], run.stdout).toBe('GITHUB_API_ERROR')
    expect(run.stdout).toContain(`Could not reach GitHub's API at ${url}`)
    expect(run.stdout).toContain('ECONNREFUSED')
    expect(run.stdout).toContain('GITHUB_API_URL')
    expect(run.stdout).not.toContain('githubstatus.com')
    expect(run.stdout).not.toMatch(/GitHub's API failed on .*\(500/)
  })
})
