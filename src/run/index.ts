/*
 * What belongs to the whole run, above any one attempt: its clock and the listener told of each
 * phase, the logger, the runner's facts, cancellation by signal and the scratch folder. A leaf
 * like src/contract: it imports nothing of src/, and every floor may import it through this face.
 */
export { cancelOnSignals } from './cancellation.js'
export type { Logger } from './logger.js'
export { PhaseClock, type Phase, type RunListener } from './phase-clock.js'
export { runnerFacts, runUrl, type RunnerFacts } from './runner-facts.js'
export { scratchFolder } from './scratch.js'
