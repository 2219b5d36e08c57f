export { ModelClient } from './model-client.js'
export type { ChatMessage } from './chat.js'
export type {
  CallRecord,
  CompleteOptions,
  Completion,
  ModelClientOptions,
  ModelExchange,
  ModelLog,
  ModelUsage
} from './call-types.js'
export { RunBudget } from './budget.js'
export type { BudgetLimits, BudgetStop } from './budget.js'
export { endpointUrl, parseHeaderLines, secretHint } from './endpoint.js'
export { STRUCTURED_MODES } from './structured.js'
export type { StructuredFormat, StructuredMode } from './structured.js'
export type { RetryReason } from './retry.js'
export { countMessageTokens, countTextTokens } from './tokens.js'
export { DEFAULT_STYLE, fileStyle, styleForFile } from './style.js'
export { outlineOf } from './file-window.js'
export type { FileWindow } from './file-window.js'
export { renderTemplate } from './prompt-templates.js'
export {
  sanitizeUntrusted,
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
export type { DraftRequest, PromptShape } from './draft-prompt.js'
export {
  refusedEditRepair,
  repairNote,
  repairOfFile,
  validationRepair,
  type RepairContext
} from './repair-prompt.js'
export { DraftPrompter } from './draft-prompter.js'
export type {
  DraftPrompterOptions,
  InstructionsSource,
  PromptRecord,
  PromptRequest
} from './draft-prompter.js'
export { noReproductionReason, reproductionMessages } from './reproduction-prompt.js'
export type { ReproductionRequest } from './reproduction-prompt.js'
export { commitMessages } from './commit-prompt.js'
export type { CommitPromptInput } from './commit-prompt.js'
export { modelMetrics } from './metrics.js'
export type { TokenTotals } from './metrics.js'
export { costOf, formatUsd, parsePricing, type ModelPricing, type TokenUsage } from './pricing.js'
export {
  admit,
  ledgerSchema,
  parseCeiling,
  pruned,
  runCap,
  show as showBudget,
  windowStates,
  WINDOW_MS,
  type BudgetRefusal,
  type BudgetUnit,
  type BudgetWindow,
  type Ceiling,
  type Ledger,
  type LedgerEntry,
  type RunCap,
  type WindowState
} from './rolling-budget.js'
