import { z } from 'zod'
import {
  fixPlanSchema,
  lazySchema,
  ModelError,
  operationSchema,
  type FixPlan,
  type Issue
} from '../contract/index.js'
import {
  fence,
  renderTemplate,
  sanitizeBody,
  sanitizeTitle,
  type ChatMessage,
  type ModelClient
} from '../model/index.js'
import type { PathPolicy } from '../policy/index.js'
import { planBranchName } from './branch-name.js'
import type { Candidate } from './candidates.js'
import { MINIMAL_FIX_LINES } from './minimal.js'
import type { RepoFiles } from './repo-files.js'

/**
 * The part of a FixPlan the model writes, every field required as strict structured output
 * wants. The branch and the validation commands are Patchsmith's: a branch name from the
 * issue title, and only the maintainer's trusted commands.
 */
const planReplySchema = lazySchema(() =>
  z.strictObject({
    root_cause: z.string().min(1).max(2_000),
    plan_steps: z.array(z.string().min(1).max(1_000)).min(1).max(10),
    file_changes: z
      .array(
        z.strictObject({
          path: z.string().min(1).max(4_096),
          operation: operationSchema(),
          description: z.string().min(1).max(2_000)
        })
      )
      .min(1)
      .max(5)
  })
)
type PlanReply = z.infer<ReturnType<typeof planReplySchema>>

const PLAN_FORMAT = {
  name: 'fix_plan',
  get schema() {
    return planReplySchema()
  }
}

interface PlanRequest {
  issue: Issue
  candidates: readonly Candidate[]
  repo: RepoFiles
  policy: PathPolicy
  model: ModelClient
  /** The repository's instructions, fenced and capped (instructionsBlock); after the fixed rules. */
  instructions?: string
}

/**
 * Asks the model for a plan over the ranked candidates, checks it (schema, then: each change on
 * a candidate, or a new file in an existing folder), asks once more with the problems named, and
 * returns a FixPlan that validates against the contract.
 */
export async function planFix(request: PlanRequest): Promise<{ plan: FixPlan; rootCause: string }> {
  const messages = planMessages(request)
  // Each refusal's problems: the first plan's are often the telling ones.
  const refused: string[][] = []
  for (let round = 1; round <= 2; round++) {
    const completion = await request.model.complete(messages, {
      responseFormat: PLAN_FORMAT,
      label: 'fix plan'
    })
    const checked = checkReply(completion.parsed ?? jsonIn(completion.text), request)
    if ('plan' in checked) return checked
    refused.push(checked.problems)
    messages.push(
      { role: 'assistant', content: completion.text },
      {
        role: 'user',
        content: `That plan cannot be used:\n${checked.problems.map((p) => `- ${p}`).join('\n')}\nReply with a corrected plan, as JSON only.`
      }
    )
  }
  const [first = [], second = []] = refused
  const same = first.join('\n') === second.join('\n')
  throw new ModelError(
    same
      ? `The model's fix plan was refused twice, both times for: ${first.join('; ')}`
      : `The model's fix plan was refused twice: first for ${first.join('; ')}; then, corrected, for ${second.join('; ')}`,
    { rule: 'invalid-plan', problems: [...new Set([...first, ...second])], rounds: refused }
  )
}

function planMessages(request: PlanRequest): ChatMessage[] {
  const { issue, candidates, repo } = request
  const values = {
    limit: MINIMAL_FIX_LINES,
    repo_instructions: request.instructions ?? '',
    issue_number: issue.number,
    issue_title: sanitizeTitle(issue.title),
    issue_body: sanitizeBody(issue.body, 8_000),
    candidates: candidates
      .map((c) => `### ${c.path} (${c.reasons.join(', ')})\n${fence(c.excerpt)}`)
      .join('\n\n'),
    folders: repo.shownFolders(60).join(', ')
  }
  return [
    { role: 'system', content: renderTemplate('plan-system', values) },
    { role: 'user', content: renderTemplate('plan-request', values) }
  ]
}

function checkReply(
  value: unknown,
  request: PlanRequest
): { plan: FixPlan; rootCause: string } | { problems: string[] } {
  const parsed = planReplySchema().safeParse(value)
  if (!parsed.success) {
    return {
      problems: parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.join('.') || 'reply'}: ${issue.message}`)
    }
  }
  const reply = parsed.data
  const candidates = new Set(request.candidates.map((c) => c.path))
  const existing = new Set(request.repo.files)
  const problems: string[] = []
  for (const change of reply.file_changes) {
    const violation = request.policy.check(change.path)
    if (violation) problems.push(`${change.path}: ${violation.reason}`)
    else if (change.operation === 'CREATE') {
      const folder = change.path.includes('/')
        ? change.path.slice(0, change.path.lastIndexOf('/'))
        : ''
      if (existing.has(change.path)) problems.push(`${change.path} exists; use MODIFY`)
      else if (!request.repo.usableFolder(folder))
        problems.push(`${change.path}: new files go in an existing folder`)
    } else if (!candidates.has(change.path)) {
      problems.push(`${change.path} is not one of the candidate files`)
    }
  }
  if (problems.length > 0) return { problems }
  const plan = fixPlanSchema().safeParse({
    branch_name: planBranchName(
      request.issue.number,
      request.issue.title,
      reply.file_changes.map((change) => change.path)
    ),
    plan_steps: [
      ...reply.plan_steps,
      `Keep the fix minimal: fewer than ${MINIMAL_FIX_LINES} changed lines, no refactoring or reformatting.`
    ],
    file_changes: reply.file_changes.map((change) => withRange(change, request.candidates)),
    validation_commands: []
  })
  if (!plan.success) return { problems: plan.error.issues.map((issue) => issue.message) }
  return { plan: plan.data, rootCause: reply.root_cause }
}

/**
 * A change to a candidate carries the lines the search found (the definition, else the hit), so
 * a draft of a file too large for the token budget is sent as a window around them.
 */
function withRange(
  change: PlanReply['file_changes'][number],
  candidates: readonly Candidate[]
): PlanReply['file_changes'][number] & { line_range?: [number, number] } {
  if (change.operation !== 'MODIFY') return change
  const range = candidates.find((c) => c.path === change.path)?.range
  return range ? { ...change, line_range: range } : change
}

/** The JSON object in a reply that was asked for JSON (fences and prose around it dropped). */
function jsonIn(text: string): unknown {
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  if (start < 0 || end < start) return undefined
  try {
    return JSON.parse(text.slice(start, end + 1))
  } catch {
    return undefined
  }
}
