export { runCommand } from './command-runner.js'
export type { CommandOutcome, CommandRunnerOptions } from './command-runner.js'
export { commandRun, noRepairReason, runPipeline, unrelatedOnly } from './pipeline.js'
export type { BaseCheck, PipelineFailure, PipelineOptions, PipelineOutcome } from './pipeline.js'
export { pipelineSteps, readCommandLine, stepCommandList } from './steps.js'
export type { PipelineStep, StepCommands } from './steps.js'
export { errorExcerpt, failureFingerprint } from './failure-text.js'
export { truncateMiddle } from './capped-output.js'
export {
  issueContext,
  judgeCommand,
  namedBy,
  namedTests,
  reportOf,
  verificationOf,
  proofFields,
  rootCause,
  settle
} from './verdict/index.js'
export type {
  CommandRun,
  CommandVerdict,
  Failure,
  IssueContext,
  Outcome,
  ProvenBy,
  Settled
} from './verdict/index.js'
export { parseTestReport, normaliseOutput } from './test-report/index.js'
export { JUnitReportFiles, REPORT_FILE_LIMITS } from './test-report/index.js'
export type { ReportFileLimits, ReportFilesRead, TestReport } from './test-report/index.js'
export {
  FRAMEWORK_NAMES,
  isTestFile,
  judgeReproduction,
  packageScripts,
  reproductionLocation,
  testFramework
} from './reproduction/index.js'
export type { TestFramework, TestLocation, ReproductionJudgement } from './reproduction/index.js'
