/**
 * The engine's order of steps (src/engine/engine.ts), driven by a fake plan run through the
 * mode seam: the run is opened before the plans run; a stop is followed by what the plans made,
 * their rollback, then the metrics and names; the mode's after() and result() come last, and the
 * result file is written once with what they made. Real parts elsewhere: a real repository, the
 * run's lock and its result file.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseRunConfig } from '../../src/config.js'
import {
  GitConflictError,
  type CodeAgentOutput,
  type CodeAgentInput
} from '../../src/contract/index.js'
import { runnerFacts, type Logger } from '../../src/run/index.js'
import { runEngine, type PlanRun, type RunMode } from '../../src/engine/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

/** A plan run that only records what the engine asks of it, and answers with `outcome`. */
function fakePlans(steps: string[], outcome: () => Promise<CodeAgentOutput>): PlanRun {
  return {
    run: () => {
      steps.push('run')
      return outcome()
    },
    stopped: (error) => {
      steps.push(`stopped ${error.code}`)
      return { details: { tasks_done: 1 } }
    },
    rollback: async () => {
      steps.push('rollback')
      return ['a file could not be put back']
    },
    input: {
      issue: { number: 4, title: 'A title', body: '' },
      fix_plan: { plan_steps: ['One step'] }
    } as unknown as CodeAgentInput,
    baseCommit: undefined,
    metrics: () => {
      steps.push('metrics')
      return { own: { plans_run: 1 }, after: { last_metric: true } }
    },
    names: () => {
      steps.push('names')
      return { branch: 'fix/4-a-title', issueNumber: 4 }
    }
  }
}

async function engineRun(outcome: () => Promise<CodeAgentOutput>) {
  const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'engine' })
  cleanups.push(() => repo.cleanup())
  const steps: string[] = []
  const quiet: Logger = { info: () => {}, warn: () => {}, debug: () => {} }
  const config = parseRunConfig({
    repo: repo.dir,
    apiKey: 'sk-test-engine',
    sandbox: 'off',
    commentOnFailure: 'false',
    outputPath: join(repo.root, 'result.json'),
    logDir: join(repo.root, 'logs')
  })
  const env = {
    ...runnerFacts({ PATH: process.env.PATH }, repo.dir),
    logger: quiet,
    progress: {
      start: async () => void steps.push('open'),
      phase: () => {},
      ownsIssueComment: false
    }
  }
  const mode: RunMode = {
    plans: () => fakePlans(steps, outcome),
    after: async ({ response }) => {
      steps.push('after')
      return { response: { ...response, metrics: { ...response.metrics, after_ran: true } } }
    },
    result: (response) => {
      steps.push('result')
      return { shaped: true, success: response.success }
    }
  }
  const run = await runEngine(config, env, mode)
  const written = JSON.parse(readFileSync(run.outputPath, 'utf8'))
  return { steps, run, written }
}

describe('the engine, with a fake plan run', () => {
  it('opens the run, runs the plans, then metrics, names, after() and result(), written once', async () => {
    const { steps, run, written } = await engineRun(async () => ({ success: true, data: [] }))
    expect(steps).toEqual(['open', 'run', 'metrics', 'names', 'after', 'result'])
    expect(run.response.success).toBe(true)
    expect(run.response.metrics).toMatchObject({ plans_run: 1, last_metric: true, after_ran: true })
    expect(run.branch).toBe('fix/4-a-title')
    expect(run.issueNumber).toBe(4)
    // The mode's shape of the result, as the file holds it.
    expect(written).toEqual({ shaped: true, success: true })
    expect(run.result).toEqual(written)
  })

  it('on a stop: what the plans made, their rollback, then the failure with both in its details', async () => {
    const { steps, run } = await engineRun(async () => {
      throw new GitConflictError('origin moved')
    })
    expect(steps).toEqual([
      'open',
      'run',
      'stopped GIT_CONFLICT',
      'rollback',
      'metrics',
      'names',
      'after',
      'result'
    ])
    expect(run.response.success).toBe(false)
    expect(run.response.error).toMatchObject({
      code: 'GIT_CONFLICT',
      message: 'origin moved',
      details: { tasks_done: 1, rollback_problems: ['a file could not be put back'] }
    })
  })
})
