/**
 * Cost: the `cost` output and metrics.cost from model-pricing and the usage each call reports
 * (cached prompt tokens at the cached price); max-cost stops a run as max-total-tokens does.
 * The first action run goes through the bundle; the other two are in-process (src/main.ts's
 * run()), sparing a Node start and the bundle's load each.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { FILES, threeFileRun } from '../../bench/lib/three-file-run.js'
import { runAction, runCli, secretFlag } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { PROMPT_CACHE_OPENAI, sharedPrefix } from '../support/prompt-cache.js'
import { replyByMatch, startModelServer, type ModelServer } from '../support/model-server.js'
import {
  expectUntouched,
  TYPO_EXAMPLE,
  TYPO_LINT,
  TYPO_PLAN,
  typoCliArgs,
  typoReplies,
  typoRepo
} from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

// USD per million input, cached input and output tokens.
const PRICING = '2.50 1.25 10'
const DRAFT_USAGE = { prompt_tokens: 3_000, completion_tokens: 200, cached_tokens: 1_024 }
const SUBJECT_USAGE = { prompt_tokens: 800, completion_tokens: 20, cached_tokens: 0 }
// (3000 - 1024) × 2.50 + 1024 × 1.25 + 200 × 10 + 800 × 2.50 + 20 × 10 = 10 420 millionths
const EXPECTED_COST = '0.01042'

async function server(): Promise<ModelServer> {
  const diff = typoReplies().replies[0]!.reply
  const model = await startModelServer(
    replyByMatch(
      [
        {
          contains: 'Conventional Commit',
          reply: { content: 'docs(readme): correct typo in installation', usage: SUBJECT_USAGE }
        }
      ],
      { content: diff, usage: DRAFT_USAGE }
    )
  )
  cleanups.push(() => model.close())
  return model
}

function repo() {
  const made = typoRepo()
  cleanups.push(() => made.cleanup())
  return made
}

const typoInputs = (url: string, root: string) => ({
  issue: `${TYPO_EXAMPLE}/issue.json`,
  'fix-plan': TYPO_PLAN,
  'base-url': url,
  'api-key': 'sk-test-cost-0001',
  'output-path': `${root}/result.json`,
  'log-dir': `${root}/logs`,
  'validation-commands': TYPO_LINT,
  push: 'false'
})

describe('cost (the action)', () => {
  it('sets the cost output from the model-pricing line and the usage the provider reported (node dist/index.js)', async () => {
    const work = repo()
    const model = await server()
    const run = await runAction({
      workspace: work.dir,
      inputs: { ...typoInputs(model.url, work.root), settings: `model-pricing: ${PRICING}` }
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.outputs.cost).toBe(EXPECTED_COST)
    expect(JSON.parse(run.outputs.tokens!)).toEqual({
      prompt: 3_800,
      cached: 1_024,
      completion: 220,
      total: 4_020,
      calls: 2
    })
    const result = JSON.parse(readFileSync(`${work.root}/result.json`, 'utf8')) as CodeAgentOutput
    const metrics = result.metrics as {
      cost: Record<string, unknown>
      tokens: { per_call: Array<Record<string, unknown>> }
    }
    expect(metrics.cost).toEqual({
      usd: 0.01042,
      input_usd: 0.00694,
      cached_input_usd: 0.00128,
      output_usd: 0.0022,
      pricing_per_million: { input: 2.5, cached_input: 1.25, output: 10 }
    })
    expect(metrics.tokens.per_call.map((call) => call.cost_usd)).toEqual([0.00822, 0.0022])
    expect(run.summary).toContain(`| Cost | $${EXPECTED_COST} |`)
  })

  it("leaves cost '' without model-pricing", async () => {
    const work = repo()
    const model = await server()
    const run = await runActionInProcess({
      workspace: work.dir,
      inputs: typoInputs(model.url, work.root)
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.outputs).toHaveProperty('cost', '')
  })

  it('stops before the first call that would pass max-cost: TOKEN_BUDGET_EXCEEDED, rolled back', async () => {
    const work = repo()
    const baseSha = work.git('rev-parse', 'HEAD')
    const model = await server()
    const run = await runActionInProcess({
      workspace: work.dir,
      inputs: {
        ...typoInputs(model.url, work.root),
        'max-cost': '0.0001',
        settings: `model-pricing: ${PRICING}`
      }
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('TOKEN_BUDGET_EXCEEDED')
    expect(run.stdout).toMatch(
      /max-cost \(\$0\.0001\) would be passed by the model call for README\.md/
    )
    expect(run.outputs.cost).toBe('0')
    expect(model.requests).toHaveLength(0)
    expect(expectUntouched(work, 'docs/42-fix-typo-readme', baseSha)).toEqual([])
  })
})

describe('cost (node dist/cli.js)', () => {
  it('takes --model-pricing and --max-cost as flags of the same names', async () => {
    const work = repo()
    const model = await server()
    const output = `${work.root}/result.json`
    const args = [...typoCliArgs(work.dir, model.url), '--no-push', '--output', output]
    const key = secretFlag('--api-key-file', 'sk-test-cost-0002')
    const run = await runCli([...args, ...key, '--model-pricing', PRICING, '--max-cost', '1'])
    expect(run.exitCode, run.stderr).toBe(0)
    const result = JSON.parse(readFileSync(output, 'utf8')) as CodeAgentOutput
    expect((result.metrics as { cost: { usd: number } }).cost.usd).toBe(Number(EXPECTED_COST))
    expect((result.metrics as { budget: Record<string, unknown> }).budget).toMatchObject({
      max_cost_usd: 1,
      cost_usd: Number(EXPECTED_COST)
    })
  })
})

describe('prompt caching (the 3-file run of bench:tokens)', () => {
  it('sends drafts that share all but the file, and reports the cached tokens the provider gave', async () => {
    const run = await threeFileRun(PROMPT_CACHE_OPENAI)
    expect(run.drafts.map((draft) => draft.path).sort()).toEqual([...FILES].sort())
    const prefix = sharedPrefix(run.drafts.map((draft) => draft.text))
    expect(prefix).toMatch(/The file for this request:\n\n- Path: src\/$/)
    expect(prefix).toContain('Cart total ignores item quantities')
    // OpenAI's rule: the first draft is a miss, the other two hit in blocks of 128 tokens.
    const cached = run.drafts.map((draft) => draft.usage.cached)
    expect(cached[0]).toBe(0)
    for (const hit of cached.slice(1)) {
      expect(hit).toBeGreaterThanOrEqual(1_024)
      expect(hit % 128).toBe(0)
    }
    expect(run.tokens.cached).toBe(cached.reduce((sum, n) => sum + n, 0))
  })
})
