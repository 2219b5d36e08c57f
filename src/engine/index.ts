/*
 * The engine: one run from its first check to its result file, whatever the mode. Modes
 * (src/modes) declare their seams (RunMode) and call runEngine; the engine never imports one.
 */
export { runEngine } from './engine.js'
export { RunContext, type AttemptSeams, type DraftParts, type PlanParts } from './run-context.js'
export type { InputContext, ModeInput, PlanRun, RunMode } from './run-mode.js'
export type { ResultSeams, RunEnd } from './run-session.js'
export type { AgentEnvironment, AgentRun } from './session.js'
export { withinTimeLimit } from './session.js'
export { jailHooks, recoverByHand, runMasker } from './run-setup.js'
export { BudgetExhausted, LEDGER_REF, readLedger, stateOf, windowText } from './budget-ledger.js'
export {
  branchGuards,
  checkedOut,
  guardPlannedFiles,
  headCommit,
  openRepository,
  plannedAsFound,
  workspacePolicy,
  WorktreeFiles,
  type Git
} from './workspace.js'
