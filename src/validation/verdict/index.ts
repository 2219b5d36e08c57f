export { judgeCommand, reportOf } from './judge.js'
export { namedBy, namedTests } from './tied.js'
export { settle } from './settle.js'
export type { CommandFailure, Settled } from './settle.js'
export { commandProof, issueContext, proofFields, rootCause, verificationOf } from './proof.js'
export type { ProvenBy } from './proof.js'
export type {
  CommandRun,
  CommandVerdict,
  Failure,
  FailureReason,
  IssueContext,
  Outcome
} from './types.js'
