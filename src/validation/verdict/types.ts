import type { Runner, TestReport } from '../test-report/index.js'

/** What a validation command printed and how it ended, on the base or after a draft. */
export interface CommandRun {
  exit_code: number
  stdout: string
  stderr: string
  /** The tests of the JUnit XML files the command wrote (surefire, gradle, `--junitxml`). */
  files?: TestReport
}

export type Outcome = 'passed' | 'failed' | 'not-run'

/**
 * Why a failure after the draft is the draft's to fix (a target) or not (unrelated):
 * named by the issue or plan, new (passed or did not exist on the base), changed (fails on the
 * base another way), or the same as on the base and tied to nothing.
 */
export type FailureReason = 'named' | 'new' | 'changed' | 'base-unknown' | 'same-on-base'

export interface Failure {
  /** A test id; the command itself when its output names no tests. */
  id: string
  kind: 'target' | 'unrelated'
  reason: FailureReason
  /** The failure after the draft, normalised, shortened. */
  message?: string
}

export interface CommandVerdict {
  command: string
  base: Outcome
  after: Outcome
  /** The runner whose per-test output was compared; absent when whole outputs were. */
  runner?: Runner
  /** Tests that failed on the base and pass after the draft. */
  fixed: string[]
  /** Tests that passed (or did not fail) on the base and fail after the draft. */
  broken: string[]
  /** Failures after the draft, each a target or unrelated. */
  failures: Failure[]
}

/** The text that names what the change is for: the issue, the plan and the triage. */
export interface IssueContext {
  text: string
}
