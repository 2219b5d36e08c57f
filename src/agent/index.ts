/*
 * The attempt floor: draft → apply → validate (→ repair) for one plan on one branch, and the
 * commit of a validated change. What belongs to the whole run (clock, logger, runner facts,
 * cancellation, scratch) is src/run's.
 * The engine (src/engine) runs it; it knows nothing of modes or of the run around it.
 */
export { attemptChange, type AttemptStats, type GreenChange } from './attempts.js'
export type { AttemptSettings } from './attempt-settings.js'
export { sandboxedCommands } from './commands.js'
export { draftEdits, type DraftContext, type Drafted, type Drafter } from './drafting.js'
export { commitChange, reportFailureOnIssue, type FinishContext } from './finish.js'
export { AttemptProgress, resumePoint } from './last-attempt.js'
export { plannedReproduction } from './reproduction-preview.js'
export { runSetupCommands } from './setup-commands.js'
export { RemovedAfterValidation } from './leftovers.js'
export { signingPublisher } from './signing.js'
