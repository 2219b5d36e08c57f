import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
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

describe.each(workflows)('examples/workflows/$name', ({ flow }) => {
  const steps = Object.values(flow.jobs).flatMap((job) => job.steps)

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

  it('runs one at a time per issue', () => {
    expect(flow.concurrency?.group).toMatch(/issue\.number|issue-number/)
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
