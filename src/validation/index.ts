export { runCommand } from './command-runner.js'
export type { CommandOutcome, CommandRunnerOptions } from './command-runner.js'
export { commandRun, noRepairReason, runPipeline, unrelatedOnly } from './pipeline.js'
export type { BaseCheck, PipelineFailure, PipelineOptions, PipelineOutcome } from './pipeline.js'
export { pipelineSteps, readCommandLine, stepCommandList } from './steps.js'
export type { PipelineStep } from './steps.js'
export { errorExcerpt, failureFingerprint } from './failure-text.js'
export { truncateMiddle } from './capped-output.js'
export { issueContext, namedTests, reportOf, proofFields, settle } from './verdict/index.js'
export type {
  CommandRun,
  CommandVerdict,
  IssueContext,
  ProvenBy,
  Settled
} from './verdict/index.js'
export {
  FRAMEWORK_NAMES,
  isTestFile,
  judgeReproduction,
  packageScripts,
  reproductionLocation,
  testFramework
} from './reproduction/index.js'
export type { TestFramework } from './reproduction/index.js'
