/**
 * The world of the plan-approval e2e tests: the typo example's repository, the loopback model
 * and GitHub, and the runs of `node dist/index.js` a label, a reply or a label approval start.
 */
import { readFileSync } from 'node:fs'
import { expect } from 'vitest'
import { runAction, type ActionRunOptions } from '../support/action-runner.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { githubTime, startGitHubServer } from '../support/github-server.js'
import { TYPO_EXAMPLE, TYPO_LINT, TYPO_PLAN, typoReplies, typoRepo } from './scenario.js'

export const ISSUE = JSON.parse(readFileSync(`${TYPO_EXAMPLE}/issue.json`, 'utf8')) as {
  number: number
  title: string
  body: string
}
export const BRANCH = 'docs/42-fix-typo-readme'

export async function world(cleanups: (() => unknown)[]) {
  const work = typoRepo()
  cleanups.push(() => work.cleanup())
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
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  return { work, model, github, base: work.git('rev-parse', 'HEAD') }
}
export type World = Awaited<ReturnType<typeof world>>

export function run(
  w: World,
  start: { runId: string; event: object; eventName: string },
  inputs: Record<string, string> = {}
) {
  const options: ActionRunOptions = {
    workspace: w.work.dir,
    event: start.event,
    env: {
      GITHUB_API_URL: w.github.url,
      GITHUB_RUN_ID: start.runId,
      GITHUB_EVENT_NAME: start.eventName
    },
    inputs: {
      // The same step for both events: the approval run reads the plan from the comment.
      'fix-plan': TYPO_PLAN,
      'triage-result': `${TYPO_EXAMPLE}/triage-result.json`,
      'base-url': w.model.url,
      'api-key': 'sk-test-approval-0001',
      'github-token': 'ghs_approvaltoken00000000000000000000000',
      'output-path': `${w.work.root}/result-${start.runId}.json`,
      'log-dir': `${w.work.root}/logs-${start.runId}`,
      'validation-commands': TYPO_LINT,
      push: 'false',
      settings: 'plan-approval: required',
      ...inputs
    }
  }
  return runAction(options)
}

export const labelled = {
  runId: '100',
  eventName: 'issues',
  event: { action: 'labeled', issue: ISSUE, sender: { login: 'maintainer', type: 'User' } }
}

export function approval(body: string, login = 'maintainer', issue: object = ISSUE) {
  return {
    runId: '200',
    eventName: 'issue_comment',
    event: {
      action: 'created',
      issue,
      comment: { body, user: { login } },
      sender: { login, type: 'User' }
    }
  }
}

/** A writer (or `login`) adds the approval label; `at`: the issue's updated_at the event carries. */
export function labelApproval(runId: string, at: string, login = 'maintainer') {
  return {
    runId,
    eventName: 'issues',
    event: {
      action: 'labeled',
      label: { name: 'patchsmith-approved' },
      issue: { ...ISSUE, updated_at: at },
      sender: { login, type: 'User' }
    }
  }
}

export function result(w: World, runId: string) {
  return JSON.parse(readFileSync(`${w.work.root}/result-${runId}.json`, 'utf8')) as {
    success: boolean
    error?: { code: string; message: string; details?: { rule?: string } }
    awaiting_approval?: {
      plan_hash: string
      approve_command: string
      approve_label?: string
      posted_on?: number
      not_posted?: string
    }
  }
}

/** Run 1: the plan posted; its hash. */
export async function postPlan(w: World): Promise<string> {
  const posted = await run(w, labelled)
  expect(posted.exitCode, posted.stdout + posted.stderr).toBe(0)
  const hash = result(w, '100').awaiting_approval!.plan_hash
  expect(posted.outputs).toMatchObject({
    outcome: 'awaiting-approval',
    success: 'false',
    'error-code': ''
  })
  return hash
}

/** A writer edits the plan's JSON in Patchsmith's comment, as GitHub lets one do. */
export function editPlan(w: World, from: string, to: string): void {
  const comment = w.github.comments[0]!
  const at = comment.body.indexOf('<!-- patchsmith:plan-json -->')
  const json = comment.body.slice(at)
  expect(json).toContain(from)
  comment.body = comment.body.slice(0, at) + json.replace(from, to)
  comment.updatedAt = githubTime()
}
