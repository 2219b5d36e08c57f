import { existsSync, readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  codeAgentOutputSchema,
  InvalidInputError,
  lastAttemptSchema,
  type AgentError,
  type CodeAgentInput,
  type LastAttempt,
  type ValidationResult,
  type RefusalRule
} from '../contract/index.js'
import { editsFromReply, readReply, type FileEdit } from '../edits/index.js'
import type { AttemptFile } from '../run-state/index.js'
import { guardReplyClaims, type PathPolicy } from '../policy/index.js'

/** What the attempt loop has paid for so far: the last diff that applied, and its validation. */
export class AttemptProgress {
  private latest?: {
    attempt: number
    diff: string
    files: string[]
    validation_results: ValidationResult[]
    validated: boolean
  }

  private store?: { file: AttemptFile; issue_number: number; branch: string; base_sha: string }

  /** From now on each attempt is also written to `file`, for a resume after a SIGKILL. */
  persistTo(file: AttemptFile, input: CodeAgentInput, baseSha: string): void {
    const { number: issue_number } = input.issue
    this.store = { file, issue_number, branch: input.fix_plan.branch_name, base_sha: baseSha }
  }

  applied(attempt: number, diff: string, edits: readonly FileEdit[]): void {
    this.latest = {
      attempt,
      diff,
      files: edits.map((edit) => edit.path),
      validation_results: [],
      validated: false
    }
    this.save()
  }

  validated(results: ValidationResult[], passed: boolean): void {
    if (this.latest)
      this.latest = { ...this.latest, validation_results: results, validated: passed }
    this.save()
  }

  private save(): void {
    if (!this.store || !this.latest || this.latest.diff.length > MAX_DIFF_CHARS) return
    const { file, ...run } = this.store
    try {
      file.write({ ...run, ...this.latest })
    } catch {
      // A full disk: the result still keeps the attempt if the run gets that far.
    }
  }

  /** The work to keep, for a run that stopped with `error`; undefined when there is none. */
  keep(error: AgentError, input: CodeAgentInput | undefined, baseSha: string | undefined) {
    if (!this.latest || !input || !baseSha || !KEPT_AFTER.has(error.code)) return undefined
    if (this.latest.diff.length > MAX_DIFF_CHARS) return undefined
    const kept: LastAttempt = {
      issue_number: input.issue.number,
      branch: input.fix_plan.branch_name,
      base_sha: baseSha,
      ...this.latest
    }
    return kept
  }
}

// A stop on a budget, the time limit, repairs exhausted, cancellation or a refused push keeps the
// work; a tampering or refused change (SECURITY_VIOLATION, INVALID_INPUT) is never offered again.
const KEPT_AFTER = new Set<string>([
  'VALIDATION_FAILED',
  'INVALID_DIFF',
  'TIMEOUT',
  'TOKEN_BUDGET_EXCEEDED',
  'MODEL_ERROR',
  'CANCELLED',
  'PERMISSION_DENIED',
  'GIT_CONFLICT',
  'BRANCH_EXISTS'
])
const MAX_DIFF_CHARS = 1_000_000
const MAX_RESULT_BYTES = 16 * 1024 * 1024

/**
 * Where `resume` says the earlier result is: `true` is the result file at output-path (where a
 * downloaded artifact's result.json is found, see withArtifactInputs), else a path; off when
 * empty or false.
 */
function resumePath(resume: string | undefined, outputPath: string): string | undefined {
  const value = resume?.trim() ?? ''
  if (value === '' || /^(false|no|off|0)$/i.test(value)) return undefined
  return /^(true|yes|on|1)$/i.test(value) ? outputPath : resolve(value)
}

/**
 * Where a rerun with `resume` starts: with `resume: true`, the attempt a run kept beside its
 * journal (AttemptFile) when there is no result file or that attempt is newer (the run was
 * killed and wrote no result); otherwise the result file's kept attempt (readResumePoint).
 */
export function resumePoint(
  resume: string | undefined,
  outputPath: string,
  input: CodeAgentInput,
  kept: AttemptFile,
  log: (text: string) => void
): LastAttempt | undefined {
  const path = resumePath(resume, outputPath)
  if (!path) return undefined
  if (path === outputPath) {
    const found = kept.read()
    const resultMs = existsSync(path) ? statSync(path).mtimeMs : -1
    if (found && 'problem' in found)
      log(`resume: the attempt kept in ${kept.file} is not used: it ${found.problem}`)
    else if (found && found.writtenMs > resultMs) {
      const { attempt } = found
      if (
        attempt.issue_number === input.issue.number &&
        attempt.branch === input.fix_plan.branch_name
      ) {
        log(
          `resume: from attempt ${attempt.attempt} of a run that ended without a result (${kept.file})`
        )
        return attempt
      }
    }
  }
  return readResumePoint(path, input)
}

/**
 * The last attempt of an earlier run, read from its result file (the `result.json` of its
 * artifact) for a rerun with `resume`. The file is untrusted: it must be a Patchsmith result for
 * the same issue and branch, and its diff is checked like a model's reply before it is applied.
 */
function readResumePoint(path: string, input: CodeAgentInput): LastAttempt {
  const refuse = (why: string, rule: RefusalRule): never => {
    throw new InvalidInputError(`resume: ${why}`, { field: 'resume', rule, path })
  }
  if (!existsSync(path) || !statSync(path).isFile()) {
    refuse(`there is no earlier result at ${path} to resume from.`, 'no-result')
  }
  if (statSync(path).size > MAX_RESULT_BYTES) {
    refuse(`${path} is larger than ${MAX_RESULT_BYTES} bytes.`, 'too-large')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    refuse(`${path} is not JSON (${(error as Error).message}).`, 'not-a-result')
  }
  const result = codeAgentOutputSchema().safeParse(parsed)
  if (!result.success) refuse(`${path} is not a Patchsmith result.`, 'not-a-result')
  const last = lastAttemptSchema().safeParse(result.data!.error?.details?.last_attempt)
  if (!last.success) {
    refuse(
      `the earlier run (${result.data!.error?.code ?? 'success'}) kept no attempt to resume from; run without resume to draft anew.`,
      'nothing-to-resume'
    )
  }
  const point = last.data!
  if (point.issue_number !== input.issue.number || point.branch !== input.fix_plan.branch_name) {
    refuse(
      `the earlier attempt was for issue #${point.issue_number} on ${point.branch}, not #${input.issue.number} on ${input.fix_plan.branch_name}.`,
      'other-run'
    )
  }
  return point
}

/**
 * The resumed diff as edits of the planned files: refused outright for what no text edit may do
 * (modes, links, unplanned paths), then placed on the base as a model's diff would be, so a base
 * that moved since is met by the same rules (or refused). Planned deletions are taken as such.
 */
export function resumedEdits(
  point: LastAttempt,
  input: CodeAgentInput,
  base: ReadonlyMap<string, string | null>,
  policy: PathPolicy
): FileEdit[] {
  guardReplyClaims(readReply('udiff', point.diff).claims, policy)
  const sections = point.diff.split(/^(?=diff --git )/m).filter((part) => part.trim() !== '')
  const changes = input.fix_plan.file_changes
  const deleted = changes.filter((change) => change.operation === 'DELETE')
  const kept = sections.filter((part) => !deleted.some((change) => names(part, change.path)))
  const edited = changes
    .filter((change) => change.operation !== 'DELETE')
    .map((change) => ({
      path: change.path,
      operation: change.operation,
      content: base.get(change.path) ?? null
    }))
  const edits =
    kept.length > 0
      ? editsFromReply('udiff', kept.join(''), edited).map((drafted) => drafted.edit)
      : []
  for (const change of deleted) {
    if (sections.some((part) => names(part, change.path))) {
      edits.push({
        path: change.path,
        operation: change.operation,
        before: base.get(change.path) ?? null,
        after: null
      })
    }
  }
  return edits.filter((edit) => edit.after !== edit.before)
}

function names(section: string, path: string): boolean {
  return section.startsWith(`diff --git a/${path} b/${path}\n`)
}
