export { judgeCommand } from './judge.js'
export { namedBy } from './tied.js'
export { repairNote, settle } from './settle.js'
export type { Settled } from './settle.js'
export type {
  CommandRun,
  CommandVerdict,
  Failure,
  FailureReason,
  IssueContext,
  Outcome
} from './types.js'
