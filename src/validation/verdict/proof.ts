import type { CodeAgentInput, CommandProof, Verification } from '../../contract/index.js'
import type { CommandVerdict, IssueContext } from './types.js'

const ROOT_CAUSE_LIMIT = 2_000

/** What ties a failure to the issue: the issue, the plan (steps, changes, commands) and the triage. */
export function issueContext(input: CodeAgentInput): IssueContext {
  const plan = input.fix_plan
  const parts = [
    input.issue.title,
    input.issue.body,
    ...plan.plan_steps.map((step) => (typeof step === 'string' ? step : JSON.stringify(step))),
    ...plan.file_changes.map((change) => `${change.path} ${change.description ?? ''}`),
    ...plan.validation_commands,
    rootCause(input) ?? ''
  ]
  return { text: parts.join('\n') }
}

/** The root cause the triage (`root_cause`) or a plan step ("Root cause: …", `{ root_cause }`) gave. */
export function rootCause(input: CodeAgentInput): string | undefined {
  // Callers that build an input by hand may leave the triage out.
  const triage = (input.triage_result ?? {}) as Record<string, unknown>
  const fromTriage = [triage.root_cause, triage.rootCause].find(
    (v) => typeof v === 'string' && v.trim()
  )
  if (typeof fromTriage === 'string') return fromTriage.trim().slice(0, ROOT_CAUSE_LIMIT)
  for (const step of input.fix_plan.plan_steps) {
    if (typeof step === 'string') {
      const said = /^\s*root cause:\s*(\S[\s\S]*)$/i.exec(step)
      if (said) return said[1]!.trim().slice(0, ROOT_CAUSE_LIMIT)
    } else if (step && typeof step === 'object') {
      const cause = (step as Record<string, unknown>).root_cause
      if (typeof cause === 'string' && cause.trim()) return cause.trim().slice(0, ROOT_CAUSE_LIMIT)
    }
  }
  return undefined
}

function commandProof(verdict: CommandVerdict): CommandProof {
  return {
    command: verdict.command,
    base: verdict.base,
    after: verdict.after,
    ...(verdict.runner ? { runner: verdict.runner } : {}),
    fixed: verdict.fixed,
    broken: verdict.broken,
    unrelated: verdict.failures.filter((f) => f.kind === 'unrelated').map((f) => f.id)
  }
}

/** What a run had, before its first draft, to prove the fix with (the agent's reproduction step). */
export type ProvenBy =
  | {
      kind: 'reproduced'
      path: string
      command: string
      /** The new test's tests that failed on the base by an assertion. */
      tests: string[]
      committed: boolean
      content: string
    }
  /** Tests the issue names that fail on the base. */
  | { kind: 'named'; tests: string[] }
  | { kind: 'none'; reason: string }

const CONTENT_LIMIT = 20_000

/**
 * How the commit proves it fixed the issue: its reproduction went fail → pass, or a test that
 * failed on the base passes; else unverified, with the reason in plain words. The tests that
 * flipped are listed, the reproduction's first.
 */
export function verificationOf(
  verdicts: readonly CommandVerdict[],
  proven: ProvenBy | undefined
): Verification {
  // A test passed after when its id flipped, or its command passed as a whole (quiet runners,
  // such as `unittest -q`, name no passing test).
  const flipped = verdicts.flatMap((v) => v.fixed)
  const allPassed = verdicts.length > 0 && verdicts.every((v) => v.after === 'passed')
  const commandPassed = (command?: string) =>
    command === undefined
      ? allPassed
      : verdicts.some((v) => v.command === command && v.after === 'passed')
  const provenTests = proven && proven.kind !== 'none' ? proven.tests : []
  const provenCommand = proven?.kind === 'reproduced' ? proven.command : undefined
  const passes = (id: string) => flipped.includes(id) || commandPassed(provenCommand)
  const first = provenTests.filter(passes)
  // The whole command stands for its tests only when they are not named.
  const others = flipped.filter((id) => !(first.length > 0 && id === provenCommand))
  const ordered = [...new Set([...first, ...others])]
  const tests = ordered.map((id) => ({ id, base: 'failed' as const, after: 'passed' as const }))
  const reproduction =
    proven?.kind === 'reproduced'
      ? {
          reproduction: {
            path: proven.path,
            command: proven.command,
            committed: proven.committed,
            content: proven.content.slice(0, CONTENT_LIMIT)
          }
        }
      : {}
  const left = verdicts.flatMap((v) =>
    v.failures.filter((f) => f.kind === 'target').map((f) => f.id)
  )
  const unverified = (reason: string): Verification => ({
    status: 'unverified',
    reason,
    tests,
    ...reproduction
  })
  if (left.length > 0) return unverified(`tests still fail after the change: ${few(left)}`)
  if (proven?.kind === 'reproduced') {
    const missing = proven.tests.filter((id) => !passes(id))
    if (missing.length === 0)
      return {
        status: 'reproduced-and-fixed',
        reason: `the new test ${proven.path} failed on the base (${few(proven.tests)}) and passes with the change`,
        tests,
        ...reproduction
      }
    return unverified(
      `the reproduction ${proven.path} did not go from failing to passing: ${few(missing)}`
    )
  }
  if (ordered.length > 0)
    return {
      status: 'fixed-failing-test',
      reason: `${few(ordered)} failed on the base and pass${ordered.length === 1 ? 'es' : ''} with the change`,
      tests
    }
  if (proven?.kind === 'none') return unverified(proven.reason)
  if (verdicts.length === 0) return unverified('no validation command ran')
  return unverified(
    'no test failed on the base and passes after the change: the validation commands pass before and after'
  )
}

function few(ids: readonly string[]): string {
  return ids.length > 5
    ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more`
    : ids.join(', ')
}

/** The proof fields of a Commit: verified when no command is left with a failure that is a target. */
export function proofFields(
  verdicts: readonly CommandVerdict[],
  input: CodeAgentInput,
  proven?: ProvenBy
): {
  verification_passed: boolean
  verification: Verification
  root_cause?: string
  proof: CommandProof[]
} {
  const cause = rootCause(input)
  const verification = verificationOf(verdicts, proven)
  return {
    verification_passed: verification.status !== 'unverified',
    verification,
    ...(cause ? { root_cause: cause } : {}),
    proof: verdicts.map(commandProof)
  }
}
