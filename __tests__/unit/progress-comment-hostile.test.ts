import { describe, expect, it } from 'vitest'
import { LiveComment } from '../../src/github/index.js'
import { pullRequestText } from '../../src/report/outcome-text.js'
import type { Commit } from '../../src/contract/index.js'
import { startGitHubServer } from '../support/github-server.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()
const MARKER = '<!-- patchsmith:progress run=4242 -->'

async function github() {
  const server = await startGitHubServer()
  cleanups.push(() => server.close())
  const warnings: string[] = []
  const live = (findExisting: boolean) =>
    new LiveComment({
      token: 'ghs_test',
      repository: 'acme/widgets',
      issueNumber: 7,
      marker: MARKER,
      findExisting,
      client: { apiUrl: server.url },
      warn: (message) => warnings.push(message)
    })
  return { server, live, warnings }
}

describe('the progress comment against hostile text', () => {
  it('a rerun edits its own comment, never a newer one someone else started with the marker', async () => {
    const { server, live } = await github()
    await live(false).settle('first attempt')
    // The run id is public: anyone can post a comment that starts with the marker.
    server.comments.push({
      id: 99_999,
      issue: 7,
      body: `${MARKER}\nlooks like Patchsmith`,
      history: [],
      user: 'mallory'
    })
    // As on GitHub: GraphQL names the token's bot without REST's "[bot]".
    server.route({
      method: 'POST',
      path: '/graphql',
      body: { data: { viewer: { login: 'github-actions' } } }
    })
    const rerun = live(true)
    await rerun.settle('second attempt')
    const mallory = server.comments.find((c) => c.id === 99_999)!
    expect(mallory.body).toBe(`${MARKER}\nlooks like Patchsmith`)
    const ours = server.comments.find((c) => c.user === undefined)!
    expect(rerun.id).toBe(ours.id)
    expect(ours.body).toBe(`${MARKER}\nsecond attempt`)
  })

  it('a body over GitHub’s 65 536 characters is cut below it and still written', async () => {
    const { server, live, warnings } = await github()
    const comment = live(false)
    await comment.settle('started')
    await comment.settle(`outcome ${'x'.repeat(200_000)}`)
    expect(comment.problem).toBeUndefined()
    expect(warnings).toEqual([])
    const [only] = server.comments
    expect(only!.body.length).toBeLessThanOrEqual(65_536)
    expect(only!.body.startsWith(`${MARKER}\noutcome xxx`)).toBe(true)
    expect(only!.body).toContain('cut')
  })

  it('the pull-request body stays under GitHub’s limit whatever the tests were called, and ends with Fixes #N', () => {
    const name = `test_${'a'.repeat(300_000)}`
    const commit = {
      message: 'fix: add',
      files_changed: ['src/calc.py'],
      validation_results: [],
      verification_passed: true,
      proof: [1, 2, 3].map((n) => ({
        command: `pytest ${n}`,
        base: 'failed' as const,
        after: 'passed' as const,
        fixed: [name, `${name}2`],
        broken: [],
        unrelated: []
      }))
    } as unknown as Commit
    const { body } = pullRequestText([commit], undefined, { issueNumber: 7, rootCause: name })
    expect(body.length).toBeLessThanOrEqual(65_536)
    expect(body.trimEnd().endsWith('Fixes #7')).toBe(true)
  })
})
