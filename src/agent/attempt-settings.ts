import type { LastAttempt } from '../contract/index.js'
import type { RunBudget } from '../model/index.js'
import type { PathPolicy } from '../policy/index.js'
import type { SecretMasker } from '../secrets/index.js'
import type { DraftContext } from './drafting.js'
import type { AttemptProgress } from './last-attempt.js'
import type { RemovedAfterValidation } from './leftovers.js'
import type { PhaseClock } from '../run/index.js'
import type { RoundSettings } from './validation-round.js'

/** What one plan's attempts are run with: the draft's context, validation's, and the run's. */
export interface AttemptSettings extends DraftContext, RoundSettings {
  maxRepairs: number
  policy: PathPolicy
  clock: PhaseClock
  /** The run's one masker: no secret may be written into a planned file. */
  masker: SecretMasker
  // model (issue 7): max-attempts, max-total-tokens and time-limit, asked before each round
  budget?: RunBudget
  /** Told of each diff that applies and of its validation, so a stopped run keeps its work. */
  progress?: AttemptProgress
  /** An earlier run's last attempt (`resume`): the first attempt applies it instead of drafting. */
  resume?: LastAttempt
  /** Files whose text is content, beside the defaults (`unicode-text-paths`). */
  unicodeTextPaths?: readonly string[]
  /** A test that reproduces the issue first (`reproduction`); unset: none is asked for. */
  reproduction?: ReproductionSettings
  /** Globs of build output validation may leave (`validation-keep`). */
  validationKeep?: readonly string[]
  /** Told what the run removed after validation (the result's metrics). */
  removed?: RemovedAfterValidation
}

export interface ReproductionSettings {
  /** commit: the test goes into the commit; evidence: run and shown only; off: none. */
  mode: 'commit' | 'evidence' | 'off'
  /** Model requests for a reproduction, at most. */
  attempts: number
  /** No reproduction stops the run before drafting. */
  required: boolean
}
