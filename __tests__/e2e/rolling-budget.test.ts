/**
 * Rolling budgets (issue 38 point 1) through the bundle: runs on clones of one bare origin
 * reserve their cap in refs/patchsmith/budget there by compare-and-swap and settle what they
 * spent; a run whose cap does not fit does not start (outcome budget-exhausted, not a failure)
 * and says when budget frees up; `patchsmith budget` shows the ledger.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import type { LedgerEntry } from '../../src/model/index.js'
import { runAction, runCli } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { replyByMatch, startModelServer, type ModelServer } from '../support/model-server.js'
import { cloneWorkTree, type TestRepo } from '../support/repo.js'
import {
  expectUntouched,
  TYPO_EXAMPLE,
  TYPO_LINT,
  TYPO_PLAN,
  typoReplies,
  typoRepo
} from './scenario.js'

const cleanups = cleanupAfterEach()

const LEDGER = 'refs/patchsmith/budget'
// USD per million input, cached input and output tokens; each run makes two calls:
// 3000 × 2.50 + 200 × 10 + 800 × 2.50 + 20 × 10 = 11 700 millionths.
const PRICING = '2.50 1.25 10'
const RUN_COST = 0.0117
const CAP = '0.02'
const CEILING = '0.05 usd'

interface LedgerFile {
  version: number
  entries: LedgerEntry[]
}

async function server(): Promise<ModelServer> {
  const diff = typoReplies().replies[0]!.reply
  const model = await startModelServer(
    replyByMatch(
      [
        {
          contains: 'Conventional Commit',
          reply: {
            content: 'docs(readme): correct typo in installation',
            usage: { prompt_tokens: 800, completion_tokens: 20 }
          }
        }
      ],
      { content: diff, usage: { prompt_tokens: 3_000, completion_tokens: 200 } }
    )
  )
  cleanups.push(() => model.close())
  return model
}

function origin(): TestRepo {
  const made = typoRepo()
  cleanups.push(() => made.cleanup())
  return made
}

const inputs = (url: string, dir: string, settings: string[]) => ({
  issue: `${TYPO_EXAMPLE}/issue.json`,
  'fix-plan': TYPO_PLAN,
  'base-url': url,
  'api-key': 'sk-test-budget-0001',
  'output-path': `${dir}.result.json`,
  'log-dir': `${dir}.logs`,
  'validation-commands': TYPO_LINT,
  'max-cost': CAP,
  push: 'false',
  'progress-comment': 'false',
  settings: [`model-pricing: ${PRICING}`, ...settings].join('\n')
})

function readLedger(repo: TestRepo): LedgerFile {
  return JSON.parse(repo.gitOrigin('cat-file', 'blob', `${LEDGER}:ledger.json`)) as LedgerFile
}

/** A ledger written straight into the bare origin, as runs elsewhere would have left it. */
function seedLedger(repo: TestRepo, ledger: LedgerFile): void {
  const git = (args: string[], input?: string) =>
    execFileSync('git', args, { cwd: repo.origin, input, encoding: 'utf8' }).trim()
  const blob = git(['hash-object', '-w', '--stdin'], JSON.stringify(ledger))
  const tree = git(['mktree'], `100644 blob ${blob}\tledger.json\n`)
  const commit = git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit-tree', '-m', 'x', tree])
  git(['update-ref', LEDGER, commit])
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)

describe('rolling budget (node dist/index.js)', () => {
  it('8 runs started together on one ceiling: spend at most the ceiling, the rest refused with when budget frees up', async () => {
    const repo = origin()
    const model = await server()
    const dirs = Array.from({ length: 8 }, (_, i) => cloneWorkTree(repo, `runner-${i}`))
    const runs = await Promise.all(
      dirs.map((dir, i) =>
        runAction({
          workspace: dir,
          inputs: inputs(model.url, dir, [`budget-per-day: ${CEILING}`]),
          env: { GITHUB_RUN_ID: String(9000 + i), GITHUB_RUN_ATTEMPT: '1' },
          timeoutMs: 240_000
        })
      )
    )
    for (const run of runs) expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    const started = runs.filter((run) => run.outputs.outcome === 'committed')
    const refused = runs.filter((run) => run.outputs.outcome === 'budget-exhausted')
    expect(started.length + refused.length).toBe(8)
    // A cap of $0.02 fits $0.05 while at most $0.03 is recorded: 2 or 3 runs, never more.
    expect(started.length).toBeGreaterThanOrEqual(2)
    expect(started.length).toBeLessThanOrEqual(3)
    expect(model.requests).toHaveLength(started.length * 2)

    const ledger = readLedger(repo)
    expect(ledger.entries).toHaveLength(started.length)
    expect(ledger.entries.every((entry) => !entry.open)).toBe(true)
    expect(ledger.entries.map((entry) => entry.usd)).toEqual(ledger.entries.map(() => RUN_COST))
    const spent = sum(ledger.entries.map((entry) => entry.usd))
    expect(spent).toBeLessThanOrEqual(0.05 + 0.02)
    expect(spent).toBeCloseTo(started.length * RUN_COST, 6)
    expect(new Set(ledger.entries.map((entry) => entry.run)).size).toBe(started.length)

    for (const run of refused) {
      expect(run.outputs.success).toBe('false')
      expect(run.outputs['error-code']).toBe('')
      expect(run.stdout).toMatch(/::warning[^:]*::The daily budget of this repository is spent/)
      expect(run.summary).toContain('Patchsmith: not started')
      expect(run.summary).toMatch(/Budget frees up at \| `\d{4}-\d\d-\d\dT/)
    }
    for (const run of started) expect(run.summary).toContain('### Rolling budget')
  }, 300_000)

  it('refuses a run whose cap does not fit: its own outcome, the message, the time budget frees up, nothing touched', async () => {
    const repo = origin()
    const baseSha = repo.git('rev-parse', 'HEAD')
    const model = await server()
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString()
    const twoHoursAgo = new Date(Date.now() - 7_200_000).toISOString()
    seedLedger(repo, {
      version: 1,
      entries: [
        { id: 'a', run: '1.1', time: twoHoursAgo, usd: 0.02, tokens: 5000, open: false },
        { id: 'b', run: '2.1', time: hourAgo, usd: 0.02, tokens: 200000, open: true }
      ]
    })
    const run = await runAction({
      workspace: repo.dir,
      inputs: inputs(model.url, join(repo.root, 'work'), [`budget-per-day: ${CEILING}`])
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.outputs).toMatchObject({ outcome: 'budget-exhausted', success: 'false' })
    expect(model.requests).toHaveLength(0)
    expect(expectUntouched(repo, 'docs/42-fix-typo-readme', baseSha)).toEqual([])

    const result = JSON.parse(
      readFileSync(`${join(repo.root, 'work')}.result.json`, 'utf8')
    ) as CodeAgentOutput
    expect(result.error).toBeUndefined()
    expect(result.outcome).toBe('budget-exhausted')
    // $0.04 spent or reserved + $0.02 > $0.05; the older entry leaving the window makes room.
    const freesAt = new Date(Date.parse(twoHoursAgo) + 24 * 3_600_000).toISOString()
    expect(result.rolling_budget?.refused).toEqual({
      window: 'day',
      unit: 'usd',
      frees_at: freesAt,
      message:
        'The daily budget of this repository is spent: $0.04 of $0.05 in the last 24 hours ' +
        '($0.02 reserved by runs still going), and this run may spend up to $0.02. It did not ' +
        `start; budget frees up at ${freesAt}. Nothing was changed.`
    })
    expect(result.rolling_budget?.windows).toEqual([
      { window: 'day', unit: 'usd', ceiling: 0.05, spent: 0.04, reserved: 0.02 }
    ])
    expect(readLedger(repo).entries.map((entry) => entry.id)).toEqual(['a', 'b'])
  }, 120_000)

  it('checks tokens for an endpoint with no price, settles what it spent, and an unreadable ledger is refused', async () => {
    const repo = origin()
    const model = await server()
    const tokenInputs = {
      ...inputs(model.url, join(repo.root, 'work'), ['budget-per-week: 100000 tokens']),
      'max-cost': '0',
      'max-total-tokens': '50000'
    }
    tokenInputs.settings = 'budget-per-week: 100000 tokens'
    const run = await runAction({ workspace: repo.dir, inputs: tokenInputs })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.outputs.outcome).toBe('committed')
    const [entry] = readLedger(repo).entries
    expect(entry).toMatchObject({ usd: 0, tokens: 4_020, open: false, run: 'local' })

    seedLedger(repo, { version: 2, entries: [] } as unknown as LedgerFile)
    repo.git('reset', '--quiet', '--hard', 'HEAD~1')
    const broken = await runAction({ workspace: repo.dir, inputs: tokenInputs })
    expect(broken.exitCode).toBe(1)
    expect(broken.outputs['error-code']).toBe('INVALID_INPUT')
    expect(broken.stdout).toContain('refs/patchsmith/budget on origin')
    expect(broken.stdout).toContain('is not a Patchsmith budget ledger')
  }, 120_000)
})

describe('patchsmith budget (node dist/cli.js)', () => {
  it('prints the ledger: spend per window against the ceilings given, and each run', async () => {
    const repo = origin()
    const now = Date.now()
    const at = (hours: number) => new Date(now - hours * 3_600_000).toISOString()
    seedLedger(repo, {
      version: 1,
      entries: [
        { id: 'a', run: '7.1', time: at(50), usd: 0.5, tokens: 90_000, open: false },
        { id: 'b', run: '8.2', time: at(3), usd: 0.25, tokens: 40_000, open: false },
        { id: 'c', run: '9.1', time: at(1), usd: 1, tokens: 200_000, open: true }
      ]
    })
    const run = await runCli([
      'budget',
      '--repo',
      repo.dir,
      '--budget-per-day',
      '2 usd',
      '--budget-per-week',
      '1000000 tokens'
    ])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toBe(
      [
        'Budget ledger refs/patchsmith/budget on origin: 3 runs in the last 7 days (1 still going: their cap counts)',
        '  last 24 hours:  $1.25, 240000 tokens of $2 ceiling, $0.75 left',
        '  last 7 days:    $1.75, 330000 tokens of 1000000 tokens ceiling, 670000 tokens left',
        'Runs (newest first):',
        `  ${at(1)}  9.1           $1          200000 tokens   reserved (still going)`,
        `  ${at(3)}  8.2           $0.25       40000 tokens    settled`,
        `  ${at(50)}  7.1           $0.5        90000 tokens    settled`,
        ''
      ].join('\n')
    )
    const json = await runCli(['budget', '--repo', repo.dir, '--budget-per-day', '$2', '--json'])
    expect(json.exitCode, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({
      ref: LEDGER,
      windows: [{ window: 'day', unit: 'usd', ceiling: 2, spent: 1.25, reserved: 1 }]
    })
    const empty = origin()
    const none = await runCli(['budget', '--repo', empty.dir])
    expect(none.stdout).toContain('refs/patchsmith/budget on origin: 0 runs in the last 7 days')
  }, 60_000)
})
