/**
 * App identity (issue 38 point 5), as examples/workflows/app-token.yml runs it, through
 * node dist/index.js: an installation token (ghs_…) given as github-token pushes, comments and
 * signs (every request to the loopback GitHub carries it; the commit is GitHub's, Verified), and
 * writes the rolling budget's ledger on origin; validation never holds it, in any form, in its
 * environment or in the git config it can read.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { PROJECT_ROOT, runAction } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { startGitHubServer } from '../support/github-server.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { TYPO_EXAMPLE, TYPO_LINT, TYPO_PLAN, typoReplies, typoRepo } from '../e2e/scenario.js'

const cleanups = cleanupAfterEach()

const APP_TOKEN = 'ghs_apptokenPatchsmithApp000000000000000'
// How the push credential reaches git (push-auth.ts): `x-access-token:<token>` in base64.
const APP_HEADER = Buffer.from(`x-access-token:${APP_TOKEN}`).toString('base64')
// Fails (exit 1) when validation's environment or the git config it can read holds the token,
// raw, as the push header, or as any extraheader at all.
const NO_TOKEN_HERE = `sh -c '! { env; git config --list; } | grep -q -i -e ${APP_TOKEN} -e ${APP_HEADER} -e extraheader'`

describe('the App token (examples/workflows/app-token.yml)', () => {
  it('the check command catches the token where it is', () => {
    const run = (env: Record<string, string>) => {
      try {
        execFileSync('sh', ['-c', NO_TOKEN_HERE.replace(/^sh -c '|'$/g, '')], {
          env: { PATH: process.env.PATH!, ...env },
          stdio: 'ignore'
        })
        return 0
      } catch (error) {
        return (error as { status: number }).status
      }
    }
    expect(run({})).toBe(0)
    expect(run({ LEAK: APP_TOKEN })).toBe(1)
    expect(run({ GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${APP_HEADER}` })).toBe(1)
  })

  it('pushes, comments and signs as the App; validation never holds its token', async () => {
    const work = typoRepo()
    cleanups.push(() => work.cleanup())
    const github = await startGitHubServer()
    cleanups.push(() => github.close())
    const gitData = github.gitData(work.origin)
    const model = await startModelServer(
      replyByMatch(
        [
          {
            contains: 'Conventional Commit',
            reply: { content: 'docs(readme): correct typo in install' }
          }
        ],
        { content: typoReplies().replies[0]!.reply }
      )
    )
    cleanups.push(() => model.close())
    const example = parse(
      readFileSync(join(PROJECT_ROOT, 'examples/workflows/app-token.yml'), 'utf8')
    ) as { jobs: { patchsmith: { steps: Array<{ with?: Record<string, string> }> } } }
    const patchsmith = example.jobs.patchsmith.steps.find((step) => step.with?.['github-token'])!

    const run = await runAction({
      workspace: work.dir,
      event: { action: 'labeled', issue: { number: 42 }, sender: { login: 'maintainer' } },
      env: { GITHUB_API_URL: github.url, GITHUB_RUN_ID: '4242' },
      inputs: {
        issue: `${TYPO_EXAMPLE}/issue.json`,
        'fix-plan': TYPO_PLAN,
        'base-url': model.url,
        'api-key': 'sk-test-app-0001',
        'github-token': APP_TOKEN,
        'output-path': `${work.root}/result.json`,
        'log-dir': `${work.root}/logs`,
        'validation-commands': `${TYPO_LINT}\n${NO_TOKEN_HERE}`,
        push: patchsmith.with!.push!,
        'max-cost': patchsmith.with!['max-cost']!,
        // The example's settings lines, as written there.
        settings: patchsmith.with!.settings!
      }
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.outputs).toMatchObject({ success: 'true', pushed: 'true', outcome: 'committed' })

    // Signed: the branch tip is the commit GitHub made (Verified), with the approved change.
    const tip = work.gitOrigin('rev-parse', 'docs/42-fix-typo-readme')
    expect(gitData.verified.has(tip)).toBe(true)
    expect(run.outputs.sha).toBe(tip)
    // Commented, committed and moved the branch as the App: every request carries its token.
    const calls = github.requests.map((request) => `${request.method} ${request.path}`)
    expect(calls).toContain('POST /repos/acme/widgets/issues/42/comments')
    expect(calls).toContain('POST /repos/acme/widgets/git/commits')
    expect(calls).toContain('POST /repos/acme/widgets/git/refs')
    for (const request of github.requests)
      expect(request.headers.authorization, `${request.method} ${request.path}`).toBe(
        `token ${APP_TOKEN}`
      )
    // The rolling budget's ledger was written on origin and settled.
    const ledger = JSON.parse(
      work.gitOrigin('cat-file', 'blob', 'refs/patchsmith/budget:ledger.json')
    )
    expect(ledger.entries).toMatchObject([{ run: '4242.1', open: false }])

    // Validation ran the check, and it found no token.
    const result = JSON.parse(readFileSync(`${work.root}/result.json`, 'utf8')) as CodeAgentOutput
    const checks = result.data![0]!.validation_results.filter((r) => r.command.startsWith('sh -c'))
    expect(checks.length).toBeGreaterThan(0)
    expect(checks.every((check) => check.exit_code === 0)).toBe(true)
    const logged = (run.stdout + run.stderr).replace(/^::add-mask::.*$/gm, '')
    expect(logged).not.toContain(APP_TOKEN)
    expect(readFileSync(join(work.dir, '.git', 'config'), 'utf8')).not.toMatch(/extraheader|ghs_/i)
  }, 120_000)
})
