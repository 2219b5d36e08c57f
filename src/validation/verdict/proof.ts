import type { CodeAgentInput, CommandProof } from '../../contract/index.js'
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

export function commandProof(verdict: CommandVerdict): CommandProof {
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

/** The proof fields of a Commit: verified when no command is left with a failure that is a target. */
export function proofFields(
  verdicts: readonly CommandVerdict[],
  input: CodeAgentInput
): { verification_passed: boolean; root_cause?: string; proof: CommandProof[] } {
  const cause = rootCause(input)
  return {
    verification_passed: verdicts.every((v) => v.failures.every((f) => f.kind === 'unrelated')),
    ...(cause ? { root_cause: cause } : {}),
    proof: verdicts.map(commandProof)
  }
}
