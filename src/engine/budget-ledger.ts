import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { budgetCap, budgetCeilings, type RunConfig } from '../config.js'
import {
  GitConflictError,
  InvalidInputError,
  type CodeAgentOutput,
  type RollingBudget
} from '../contract/index.js'
import { Git, pushAuth, RemoteRefFile, type RefFileVersion } from '../git/index.js'
import {
  admit,
  ledgerSchema,
  pruned,
  windowStates,
  type Ceiling,
  type Ledger,
  type LedgerEntry,
  type RunBudget,
  type RunCap
} from '../model/index.js'
import type { Logger, RunnerFacts } from '../run/index.js'

/** Where every runner of the repository finds the ledger: a ref on origin, not a branch. */
export const LEDGER_REF = 'refs/patchsmith/budget'
// Eight runs started together each win one write in at most eight rounds; the rest is slack.
const MAX_TRIES = 40

/** A run that did not start: the ledger had no room for its cap (outcome budget-exhausted). */
export class BudgetExhausted extends Error {
  constructor(readonly state: RollingBudget) {
    super(state.refused?.message ?? 'The rolling budget is spent.')
    this.name = 'BudgetExhausted'
  }

  response(): CodeAgentOutput {
    return { success: false, outcome: 'budget-exhausted', rolling_budget: this.state }
  }
}

/**
 * This run's place in the repository's rolling budget: its cap reserved in the ledger before
 * the first model call (reserve), what it spent written over that at the end (settle). Between
 * calls the run is held to what it reserved by max-cost and max-total-tokens (RunBudget).
 */
export class BudgetLedger {
  private constructor(
    private readonly file: RemoteRefFile,
    private readonly ceilings: readonly Ceiling[],
    private readonly cap: RunCap,
    private readonly entry: LedgerEntry
  ) {}

  /**
   * Undefined without budget lines; throws BudgetExhausted when a ceiling has no room for the
   * run's cap, saying when it frees up.
   */
  static async reserve(
    config: RunConfig,
    repoDir: string,
    facts: RunnerFacts,
    logger: Logger
  ): Promise<BudgetLedger | undefined> {
    const ceilings = budgetCeilings(config)
    if (ceilings.length === 0) return undefined
    const cap = budgetCap(config)
    const file = await ledgerFile(repoDir, config.githubToken, facts)
    const entry: LedgerEntry = {
      id: randomUUID(),
      run: runLabel(facts.vars),
      time: '',
      usd: cap.usd,
      tokens: cap.tokens,
      open: true
    }
    await compareAndSwap(file, (ledger) => {
      const now = Date.now()
      const refusal = admit(ledger.entries, ceilings, cap, now)
      if (refusal) {
        const windows = stateOf(ledger.entries, ceilings, now)
        const { window, unit } = refusal.ceiling
        throw new BudgetExhausted({
          ref: LEDGER_REF,
          windows,
          run: { reserved_usd: 0, reserved_tokens: 0 },
          refused: { window, unit, message: refusal.message, frees_at: refusal.freesAt }
        })
      }
      entry.time = new Date(now).toISOString()
      return [...pruned(ledger.entries, now), entry]
    })
    logger.info(
      `Rolling budget: reserved this run's cap (${capText(cap, ceilings)}) in ${LEDGER_REF} on origin`
    )
    return new BudgetLedger(file, ceilings, cap, entry)
  }

  /** Writes what the run spent over its reservation; a failure is logged and said, never thrown. */
  async settle(budget: RunBudget, logger: Logger): Promise<RollingBudget> {
    const spent = { usd: Number(budget.costUsd.toFixed(6)), tokens: budget.tokens }
    const settled = { ...this.entry, ...spent, open: false }
    const run = {
      reserved_usd: this.cap.usd,
      reserved_tokens: this.cap.tokens,
      spent_usd: spent.usd,
      spent_tokens: spent.tokens
    }
    let entries: readonly LedgerEntry[] = []
    try {
      entries = await compareAndSwap(this.file, (ledger) => {
        const others = ledger.entries.filter((entry) => entry.id !== this.entry.id)
        return [...pruned(others, Date.now()), settled]
      })
    } catch (error) {
      const problem = `could not settle this run in ${LEDGER_REF}: ${(error as Error).message}; its reservation stays until it ages out`
      logger.warn(`Rolling budget: ${problem}`)
      return { ref: LEDGER_REF, windows: [], run, settle_problem: problem }
    }
    const windows = stateOf(entries, this.ceilings, Date.now())
    logger.info(`Rolling budget: ${windows.map(windowText).join('; ')}`)
    return { ref: LEDGER_REF, windows, run }
  }
}

/** `patchsmith budget`: the ledger as origin holds it now, against the ceilings given. */
export async function readLedger(
  repoDir: string,
  token: string | undefined,
  facts: RunnerFacts
): Promise<Ledger> {
  const file = await ledgerFile(repoDir, token, facts)
  return parseLedger(await file.read())
}

export function stateOf(
  entries: readonly LedgerEntry[],
  ceilings: readonly Ceiling[],
  now: number
): RollingBudget['windows'] {
  return windowStates(entries, ceilings, now).map(({ window, unit, amount, spent, reserved }) => ({
    window,
    unit,
    ceiling: amount,
    spent,
    reserved
  }))
}

async function ledgerFile(
  repoDir: string,
  token: string | undefined,
  facts: RunnerFacts
): Promise<RemoteRefFile> {
  const git = await Git.open(repoDir)
  return new RemoteRefFile(git, LEDGER_REF, pushAuth(token, facts.serverUrl, facts.vars))
}

/** Reads, changes and writes the ledger until a write lands on the version it read. */
async function compareAndSwap(
  file: RemoteRefFile,
  change: (ledger: Ledger) => LedgerEntry[]
): Promise<LedgerEntry[]> {
  for (let tries = 1; tries <= MAX_TRIES; tries++) {
    const version = await file.read()
    const entries = change(parseLedger(version))
    if (await file.write(`${JSON.stringify({ version: 1, entries }, null, 1)}\n`, version))
      return entries
    // Another run wrote first: read again, after a short random wait so the losers spread out.
    await sleep(Math.floor(Math.random() * 100 * Math.min(tries, 5)))
  }
  throw new GitConflictError(
    `${LEDGER_REF} on origin changed under every one of ${MAX_TRIES} writes; too many runs at once. Rerun.`,
    { rule: 'budget-ledger-busy', ref: LEDGER_REF },
    true
  )
}

function parseLedger(version: RefFileVersion): Ledger {
  if (version.oid === undefined) return { version: 1, entries: [] }
  let parsed: unknown
  try {
    parsed = JSON.parse(version.text ?? '')
  } catch {
    parsed = undefined
  }
  const ledger = ledgerSchema.safeParse(parsed)
  if (ledger.success) return ledger.data
  throw new InvalidInputError(
    `${LEDGER_REF} on origin (${version.oid.slice(0, 12)}) is not a Patchsmith budget ledger, so the rolling budget cannot be checked. Look at it (git fetch origin ${LEDGER_REF} && git show FETCH_HEAD:ledger.json), then delete it (git push origin :${LEDGER_REF}) to start a new one.`,
    { rule: 'budget-ledger-unreadable', ref: LEDGER_REF, oid: version.oid }
  )
}

function runLabel(vars: RunnerFacts['vars']): string {
  const id = vars.GITHUB_RUN_ID
  return id ? `${id}.${vars.GITHUB_RUN_ATTEMPT || '1'}` : 'local'
}

function capText(cap: RunCap, ceilings: readonly Ceiling[]): string {
  const units = new Set(ceilings.map((ceiling) => ceiling.unit))
  return [
    ...(units.has('usd') ? [`$${cap.usd}`] : []),
    ...(units.has('tokens') ? [`${cap.tokens} tokens`] : [])
  ].join(', ')
}

function windowText(state: RollingBudget['windows'][number]): string {
  const amount = (value: number) => (state.unit === 'usd' ? `$${value}` : `${value} tokens`)
  const span = state.window === 'day' ? 'last 24 hours' : 'last 7 days'
  const open = state.reserved > 0 ? ` (${amount(state.reserved)} reserved)` : ''
  return `${amount(state.spent)} of ${amount(state.ceiling)} in the ${span}${open}`
}
