import { resolve } from 'node:path'
import { runnerFacts } from '../run/index.js'
import type { RunConfigInput } from '../config.js'
import { toAgentError } from '../contract/index.js'
import { LEDGER_REF, readLedger, stateOf } from '../engine/index.js'
import { parseCeiling, type BudgetWindow, type Ceiling, type Ledger } from '../model/index.js'
import { amountText } from '../report/budget-text.js'
import { UsageError } from './args.js'

const SPAN: Record<BudgetWindow, string> = { day: 'last 24 hours', week: 'last 7 days' }

/**
 * `patchsmith budget`: the rolling budget's ledger as origin holds it now. Each window's spend
 * in USD and tokens (runs still going count their cap), against the ceilings given with
 * --budget-per-day and --budget-per-week, and the runs of the last 7 days. Returns the exit code.
 */
export async function budgetCommand(
  settings: RunConfigInput,
  out: { print: (text: string) => void; warn: (line: string) => void; json: boolean }
): Promise<number> {
  const ceilings = givenCeilings(settings)
  const repo = resolve(settings.repo ?? '.')
  const token = process.env.GITHUB_TOKEN || settings.githubToken
  let ledger: Ledger
  try {
    ledger = await readLedger(repo, token, runnerFacts(process.env))
  } catch (thrown) {
    const error = toAgentError(thrown)
    out.warn(`patchsmith: ${error.code}: ${error.message}`)
    return 1
  }
  const now = Date.now()
  const measured: Ceiling[] = (['day', 'week'] as const).flatMap((window) =>
    (['usd', 'tokens'] as const).map((unit) => ({
      window,
      unit,
      amount: ceilings.find((c) => c.window === window && c.unit === unit)?.amount ?? 0
    }))
  )
  const windows = stateOf(ledger.entries, measured, now)
  if (out.json) {
    const report = { ref: LEDGER_REF, windows: stateOf(ledger.entries, ceilings, now), ledger }
    out.print(`${JSON.stringify(report, null, 2)}\n`)
    return 0
  }
  const open = ledger.entries.filter((entry) => entry.open).length
  const lines = [
    `Budget ledger ${LEDGER_REF} on origin: ${ledger.entries.length} run${ledger.entries.length === 1 ? '' : 's'} in the last 7 days` +
      (open > 0 ? ` (${open} still going: their cap counts)` : '')
  ]
  for (const window of ['day', 'week'] as const) {
    const [usd, tokens] = windows.filter((state) => state.window === window)
    const spent = `${amountText('usd', usd!.spent)}, ${amountText('tokens', tokens!.spent)}`
    const limits = [usd!, tokens!]
      .filter((state) => state.ceiling > 0)
      .map(
        (state) =>
          `${amountText(state.unit, state.ceiling)} ceiling, ${amountText(state.unit, Math.max(0, round(state.unit, state.ceiling - state.spent)))} left`
      )
    lines.push(
      `  ${`${SPAN[window]}:`.padEnd(16)}${spent}${limits.length > 0 ? ` of ${limits.join('; ')}` : ''}`
    )
  }
  if (ledger.entries.length > 0) lines.push('Runs (newest first):')
  for (const entry of [...ledger.entries].sort((a, b) => b.time.localeCompare(a.time)))
    lines.push(
      `  ${entry.time}  ${entry.run.padEnd(14)}${amountText('usd', entry.usd).padEnd(12)}${amountText('tokens', entry.tokens).padEnd(16)}${entry.open ? 'reserved (still going)' : 'settled'}`
    )
  out.print(`${lines.join('\n')}\n`)
  return 0
}

function givenCeilings(settings: RunConfigInput): Ceiling[] {
  const given: Array<[BudgetWindow, string | undefined]> = [
    ['day', settings.budgetPerDay],
    ['week', settings.budgetPerWeek]
  ]
  return given.flatMap(([window, text]) => {
    if (!text) return []
    try {
      return [parseCeiling(window, text)]
    } catch (error) {
      throw new UsageError(`"--budget-per-${window}": ${(error as Error).message}.`)
    }
  })
}

const round = (unit: 'usd' | 'tokens', value: number) =>
  unit === 'usd' ? Number(value.toFixed(6)) : Math.round(value)
