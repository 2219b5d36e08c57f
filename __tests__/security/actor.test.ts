import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runAction } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { startGitHubServer } from '../support/github-server.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { TYPO_LINT, TYPO_PLAN, typoReplies, typoRepo } from '../e2e/scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const ISSUE = { number: 42, title: 'Fix typo in README', body: "Line 15: 'teh' should be 'the'" }

/**
 * The typo run started by `sender`, whose permission the GitHub server answers with `role`:
 * in-process (src/main.ts's run()), or through the bundle (`node dist/index.js`) when `bundled`.
 */
async function startedBy(
  sender: { login: string; type: string },
  role?: string,
  inputs = {},
  bundled = false,
  env: Record<string, string> = {}
) {
  const repo = typoRepo()
  cleanups.push(() => repo.cleanup())
  const model = await startModelServer(replyByMatch(typoReplies().replies))
  cleanups.push(() => model.close())
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  if (role) {
    github.route({
      method: 'GET',
      path: `/repos/acme/widgets/collaborators/${encodeURIComponent(sender.login)}/permission`,
      body: { permission: role === 'triage' ? 'read' : role, role_name: role }
    })
  }
  const run = await (bundled ? runAction : runActionInProcess)({
    workspace: repo.dir,
    env: { GITHUB_API_URL: github.url, ...env },
    event: { action: 'labeled', issue: ISSUE, sender },
    inputs: {
      'fix-plan': TYPO_PLAN,
      'base-url': model.url,
      'api-key': 'sk-test-actor',
      'validation-commands': TYPO_LINT,
      'github-token': 'ghs_actor0000000000000000000000000000000',
      'comment-on-failure': 'false',
      'output-path': `${repo.root}/result.json`,
      ...inputs
    }
  })
  return { run, model, github, repo }
}

describe('T62: who may start a run', () => {
  it.each(['read', 'triage', 'none'])(
    'refuses a sender with %s permission before any model call',
    async (role) => {
      const stranger = { login: 'stranger', type: 'User' }
      const { run, model, repo } = await startedBy(stranger, role, {}, role === 'read')
      expect(run.exitCode).toBe(1)
      expect(run.outputs['error-code']).toBe('SECURITY_VIOLATION')
      const result = JSON.parse(readFileSync(run.outputs['output-path']!, 'utf8'))
      expect(result.error.details).toMatchObject({ rule: 'unauthorized-actor', actor: 'stranger' })
      expect(model.requests).toHaveLength(0)
      expect(repo.git('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
    }
  )

  it('runs for a sender with write permission, after asking GitHub', async () => {
    const { run, github } = await startedBy({ login: 'maintainer', type: 'User' }, 'write')
    expect(run.exitCode, run.stdout).toBe(0)
    expect(github.requests.map((r) => r.path)).toContain(
      '/repos/acme/widgets/collaborators/maintainer/permission'
    )
  })

  it('posts the progress comment only once the permission is checked; a reader gets the refusal alone, titled for it', async () => {
    const comments = (github: Awaited<ReturnType<typeof startedBy>>['github']) =>
      github.requests.filter((r) => /\/issues\/42\/comments/.test(r.path))
    const firstIndex = (
      github: Awaited<ReturnType<typeof startedBy>>['github'],
      test: (path: string) => boolean
    ) => github.requests.findIndex((r) => test(r.path))
    const onIssue = { GITHUB_EVENT_NAME: 'issues' }
    const reader = await startedBy(
      { login: 'stranger', type: 'User' },
      'read',
      {
        'comment-on-failure': 'true'
      },
      false,
      onIssue
    )
    expect(reader.run.outputs['error-code']).toBe('SECURITY_VIOLATION')
    const posted = comments(reader.github)
    expect(posted.map((r) => r.method)).toEqual(['POST'])
    const body = (posted[0]!.body as { body: string }).body
    expect(body).not.toContain('working on this')
    expect(body).toContain(
      '| What failed | The permission check of the person who started the run |'
    )
    expect(reader.run.summary).toContain('The permission check of the person who started the run')

    const writer = await startedBy(
      { login: 'maintainer', type: 'User' },
      'write',
      {},
      false,
      onIssue
    )
    expect(writer.run.exitCode, writer.run.stdout).toBe(0)
    const asked = firstIndex(writer.github, (path) => path.endsWith('/maintainer/permission'))
    const commented = firstIndex(writer.github, (path) => /\/issues\/42\/comments/.test(path))
    expect(asked).toBeGreaterThanOrEqual(0)
    expect(commented).toBeGreaterThan(asked)
  })

  it('refuses a bot (and a lookalike login) unless it is an allowed bot', async () => {
    const bot = await startedBy({ login: 'dependabot[bot]', type: 'Bot' })
    expect(bot.run.outputs['error-code']).toBe('SECURITY_VIOLATION')
    expect(bot.model.requests).toHaveLength(0)
    const lookalike = await startedBy({ login: 'githubactions-bot', type: 'User' }, 'read')
    expect(lookalike.run.outputs['error-code']).toBe('SECURITY_VIOLATION')
    const allowed = await startedBy({ login: 'renovate[bot]', type: 'Bot' }, undefined, {
      'allowed-bots': 'renovate[bot]'
    })
    expect(allowed.run.exitCode, allowed.run.stdout).toBe(0)
  })

  it('does not check when told not to, and refuses when it cannot check', async () => {
    const unchecked = await startedBy({ login: 'stranger', type: 'User' }, 'read', {
      'require-actor-permission': 'none'
    })
    expect(unchecked.run.exitCode, unchecked.run.stdout).toBe(0)
    const noToken = await startedBy({ login: 'stranger', type: 'User' }, 'admin', {
      'github-token': ''
    })
    expect(noToken.run.outputs['error-code']).toBe('SECURITY_VIOLATION')
    expect(noToken.run.stdout).toContain('require-actor-permission: none')
  })
})
