/**
 * plan-approval: required on a run with no issue to comment on, through dist/: the command line,
 * and the action started by a repository_dispatch with the issue given as a file. Nothing is
 * posted, so nothing can
 * be approved yet: the result (awaiting_approval.not_posted), the CLI's lines and the job summary
 * say that the plan could not be posted for approval, and how to approve it (the command, the
 * hash, the label).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runAction, runCli } from '../support/action-runner.js'
import { expectUntouched, TYPO_EXAMPLE, TYPO_LINT, TYPO_PLAN, typoCliArgs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { BRANCH, result, world as approvalWorld } from './approval-world.js'

const cleanups = cleanupAfterEach()
const world = () => approvalWorld(cleanups)

function expectHowToApprove(text: string, hash: string): void {
  expect(text).toContain(`The plan (${hash}) could not be posted for approval`)
  expect(text).toContain(`"/patchsmith approve ${hash}" or the label "patchsmith-approved"`)
  expect(text).toContain('where it comments on issue #42')
}

describe('plan approval with no issue to comment on', () => {
  it('the command line says the plan was not posted and how to approve it', async () => {
    const w = await world()
    const output = `${w.work.root}/result-cli.json`
    const cli = await runCli(
      [...typoCliArgs(w.work.dir, w.model.url), '--plan-approval', 'required', '--output', output],
      { env: { OPENAI_API_KEY: 'sk-test-approval-0001' } }
    )
    expect(cli.exitCode, cli.stdout + cli.stderr).toBe(0)
    const held = JSON.parse(readFileSync(output, 'utf8')).awaiting_approval
    expect(held.posted_on).toBeUndefined()
    expect(held.not_posted).toContain('the command line posts no comment')
    expectHowToApprove(held.not_posted, held.plan_hash)
    expectHowToApprove(cli.stderr, held.plan_hash)
    expect(cli.stderr).toContain('awaiting approval (nothing changed) after')
    expect(cli.stderr).toContain('but not posted where it could be approved:')
    expect(w.model.requests).toHaveLength(0)
    expect(expectUntouched(w.work, BRANCH, w.base)).toEqual([])
  })

  it('a dispatch from outside says so in the result and the job summary', async () => {
    const w = await world()
    const run = await runAction({
      workspace: w.work.dir,
      event: { action: 'fix', client_payload: {} },
      env: {
        GITHUB_API_URL: w.github.url,
        GITHUB_RUN_ID: '100',
        GITHUB_EVENT_NAME: 'repository_dispatch'
      },
      inputs: {
        issue: `${TYPO_EXAMPLE}/issue.json`,
        'fix-plan': TYPO_PLAN,
        'triage-result': `${TYPO_EXAMPLE}/triage-result.json`,
        'base-url': w.model.url,
        'api-key': 'sk-test-approval-0001',
        'github-token': 'ghs_approvaltoken00000000000000000000000',
        'output-path': `${w.work.root}/result-100.json`,
        'validation-commands': TYPO_LINT,
        push: 'false',
        settings: 'plan-approval: required'
      }
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.outputs.outcome).toBe('awaiting-approval')
    const held = result(w, '100').awaiting_approval!
    expect(held.not_posted).toContain('the run has no issue to comment on')
    expectHowToApprove(held.not_posted!, held.plan_hash)
    expect(run.summary).toContain('> [!WARNING]')
    expect(run.summary).toContain(`The plan (${held.plan_hash}) could not be posted for approval`)
    expect(run.stdout).toContain('could not be posted for approval')
    expect(w.github.comments).toHaveLength(0)
    expect(w.model.requests).toHaveLength(0)
  })
})
