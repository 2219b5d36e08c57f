import type { CodeAgentOutput, RollingBudget } from '../contract/index.js'
import { formatUsd } from '../model/index.js'
import { cell, code, table } from './markdown.js'

type BudgetWindow = RollingBudget['windows'][number]

/** `$0.42 of $5` or `120000 of 2000000 tokens`. */
export function amountText(unit: BudgetWindow['unit'], value: number): string {
  return unit === 'usd' ? `$${formatUsd(value)}` : `${value} tokens`
}

const SPAN = { day: 'last 24 hours', week: 'last 7 days' } as const

/** The rolling budget's table: each ceiling, spent, reserved by runs still going. */
function rollingBudgetTable(windows: readonly BudgetWindow[]): string {
  return table(
    ['Window', 'Spent', 'Ceiling', 'Reserved by runs still going'],
    windows.map((state) => [
      SPAN[state.window],
      amountText(state.unit, state.spent),
      amountText(state.unit, state.ceiling),
      state.reserved > 0 ? amountText(state.unit, state.reserved) : '—'
    ])
  )
}

/** The job summary's part for the rolling budget: the ledger after this run, or why it waits. */
export function rollingBudgetParts(response: CodeAgentOutput): string[] {
  const budget = response.rolling_budget
  if (!budget) return []
  const parts = ['### Rolling budget']
  if (budget.windows.length > 0) parts.push(rollingBudgetTable(budget.windows))
  const { run } = budget
  const spent =
    run.spent_usd === undefined
      ? ''
      : `; spent $${formatUsd(run.spent_usd)} and ${run.spent_tokens ?? 0} tokens`
  if (!budget.refused)
    parts.push(
      `This run reserved $${formatUsd(run.reserved_usd)} and ${run.reserved_tokens} tokens (its cap)${spent}. Ledger: ${code(budget.ref)} on origin (\`patchsmith budget\` shows it).`
    )
  if (budget.settle_problem) parts.push(`> [!WARNING]\n> ${cell(budget.settle_problem)}`)
  return parts
}

/** A run the rolling budget did not let start: the summary's title and outcome. */
export function budgetExhaustedParts(response: CodeAgentOutput, issue: string): string[] {
  const refused = response.rolling_budget?.refused
  return [
    `## ⏸️ Patchsmith: not started${issue}, the rolling budget is spent`,
    table(
      ['Outcome', ''],
      [
        ['Outcome', code('budget-exhausted')],
        ['Message', cell(refused?.message ?? '')],
        ['Budget frees up at', refused ? code(refused.frees_at) : '—'],
        ['Repository', 'untouched: no model call was made'],
        ['Can a rerun help?', 'after that time, yes; before it, it ends the same way']
      ]
    )
  ]
}
