export { ModelClient } from './model-client.js'
export type { ChatMessage } from './chat.js'
export type { ModelClientOptions, ModelExchange } from './call-types.js'
export { RunBudget } from './budget.js'
export { endpointUrl, parseHeaderLines, secretHint } from './endpoint.js'
export { STRUCTURED_MODES } from './structured.js'
export { countMessageTokens, countTextTokens } from './tokens.js'
export { DEFAULT_STYLE, fileStyle, styleForFile } from './style.js'
export { outlineOf } from './file-window.js'
export { renderTemplate } from './prompt-templates.js'
export {
  sanitizeTitle,
  sanitizeBody,
  fence,
  inertForLog,
  inertJson,
  mayRunWorkflowCommand
} from './untrusted-text.js'
export { draftMessages } from './draft-prompt.js'
export { instructionsBlock, MAX_INSTRUCTION_TOKENS } from './repo-instructions.js'
export type { InstructionFile, InstructionsBlock } from './repo-instructions.js'
export {
  refusedEditRepair,
  repairNote,
  repairOfFile,
  validationRepair,
  type RepairContext
} from './repair-prompt.js'
export { DraftPrompter } from './draft-prompter.js'
export { noReproductionReason, reproductionMessages } from './reproduction-prompt.js'
export { commitMessages } from './commit-prompt.js'
export { modelMetrics } from './metrics.js'
export { costOf, formatUsd, parsePricing } from './pricing.js'
export {
  admit,
  ledgerSchema,
  parseCeiling,
  pruned,
  runCap,
  windowStates,
  type BudgetWindow,
  type Ceiling,
  type Ledger,
  type LedgerEntry,
  type RunCap
} from './rolling-budget.js'
