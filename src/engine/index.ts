/*
 * The engine: one run from its first check to its result file, whatever the mode. Modes
 * (src/modes) declare their seams (RunMode) and call runEngine; the engine never imports one.
 */
export { runEngine } from './engine.js'
export { RunContext, type DraftParts } from './run-context.js'
export type { PlanRun, RunEnd, RunMode } from './mode-seams.js'
export type { AgentEnvironment, AgentRun } from './entry.js'
export { runMasker, withinTimeLimit } from './session.js'
export { recoverByHand } from './repository-claim.js'
export { LEDGER_REF, readLedger, stateOf } from './budget-ledger.js'
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
