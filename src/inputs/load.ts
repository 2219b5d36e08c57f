import { existsSync } from 'node:fs'
import type { z } from 'zod'
import {
  codeAgentInputSchema,
  fixPlanSchema,
  InvalidInputError,
  issueSchema,
  triageResultSchema,
  type CodeAgentInput
} from '../contract/index.js'
import { readStructured } from './structured-text.js'

interface InputSources {
  issue?: string
  fixPlan?: string
  triageResult?: string
  agentInput?: string
  /** The triggering event's payload file (GITHUB_EVENT_PATH); its issue is the default issue. */
  eventPath?: string
  /** Relative file paths are read from here. */
  baseDir: string
}

/** Loads and validates the CodeAgentInput; bad input stops here, naming the field. */
export function loadAgentInput(sources: InputSources): CodeAgentInput {
  if (sources.agentInput) {
    return validate(
      codeAgentInputSchema(),
      readStructured(sources.agentInput, 'agent-input', sources.baseDir),
      ''
    )
  }
  const issue = sources.issue
    ? readStructured(sources.issue, 'issue', sources.baseDir)
    : issueFromEvent(sources.eventPath)
  if (!sources.fixPlan) {
    throw new InvalidInputError(
      'No fix plan: give the "fix-plan" input (a file path or inline JSON/YAML) or "agent-input".',
      { field: 'fix_plan', rule: 'missing-input' }
    )
  }
  const plan = readStructured(sources.fixPlan, 'fix-plan', sources.baseDir)
  const triage = sources.triageResult
    ? readStructured(sources.triageResult, 'triage-result', sources.baseDir)
    : {}
  return {
    issue: validate(issueSchema(), issue, 'issue'),
    triage_result: validate(triageResultSchema(), triage, 'triage_result'),
    fix_plan: validate(fixPlanSchema(), plan, 'fix_plan')
  }
}

/**
 * The number of the issue the inputs name (`issue-number`, the `issue` input, or the issue of
 * `agent-input`), read before the run loads them: undefined when there is none or it cannot be
 * read, which is reported where the run loads its input.
 */
export function namedIssueNumber(
  sources: Pick<InputSources, 'issue' | 'agentInput' | 'baseDir'> & { issueNumber?: number }
): number | undefined {
  if (sources.issueNumber) return sources.issueNumber
  try {
    const issue = sources.agentInput
      ? (readStructured(sources.agentInput, 'agent-input', sources.baseDir) as { issue?: unknown })
          .issue
      : sources.issue && readStructured(sources.issue, 'issue', sources.baseDir)
    return issue ? validate(issueSchema(), issue, 'issue').number : undefined
  } catch {
    return undefined
  }
}

export function issueFromEvent(eventPath: string | undefined): unknown {
  const payload: { issue?: unknown } =
    eventPath && existsSync(eventPath) ? (readStructured(eventPath, 'event', '/') as object) : {}
  if (!payload.issue) {
    throw new InvalidInputError(
      'No issue: give the "issue" input (a file path or inline JSON/YAML), or run on an issues or issue_comment event.',
      { field: 'issue', rule: 'missing-input' }
    )
  }
  return payload.issue
}

export function validate<T extends z.ZodType>(
  schema: T,
  value: unknown,
  root: string
): z.output<T> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const problems = result.error.issues.slice(0, 5).map((issue) => ({
    field: fieldPath(root, issue.path),
    message: issue.message
  }))
  const first = problems[0]!
  throw new InvalidInputError(`Invalid ${first.field || 'input'}: ${first.message}`, {
    field: first.field,
    problems
  })
}

function fieldPath(root: string, path: ReadonlyArray<PropertyKey>): string {
  let text = root
  for (const part of path) {
    text += typeof part === 'number' ? `[${part}]` : `${text ? '.' : ''}${String(part)}`
  }
  return text
}
