import type { CodeAgentInput, FileChange, StyleConfig } from '../contract/index.js'
import {
  assertStillParses,
  editFromRead,
  readReply,
  formatNamed,
  type ReplyFormat,
  type FileEdit,
  type Placement
} from '../edits/index.js'
import {
  draftMessages,
  repairOfFile,
  type ChatMessage,
  type DraftPrompter,
  type ModelClient,
  type RepairContext
} from '../model/index.js'
import { guardReplyClaims, type PathPolicy } from '../policy/index.js'
import type { AttemptLog } from '../report/index.js'
import { mapConcurrent } from './concurrency.js'
import type { Logger } from '../run/index.js'

export interface DraftContext {
  input: CodeAgentInput
  format: ReplyFormat
  /** The format for one file, when it depends on the file (`auto`); else `format` for all. */
  formatFor?: (content: string | null) => ReplyFormat
  style: StyleConfig
  base: ReadonlyMap<string, string | null>
  concurrency: number
  model: ModelClient
  log: AttemptLog
  logger: Logger
  policy: PathPolicy
  // model (issue 7): the token-budgeted prompt (window, outline, .editorconfig style)
  prompter?: DraftPrompter
  /** An adapter's own drafting (its contract's prompts), instead of one call per planned file. */
  drafter?: Drafter
  /** Planned files a first draft may leave unchanged (RunHooks.mayStayUnchanged). */
  mayStayUnchanged?: (path: string) => boolean
  /**
   * The reproduction test, written before the fix: every draft is shown it and its failure on
   * the base, and it joins each attempt's edits as written (its planned CREATE is never drafted).
   */
  written?: { edit: FileEdit; failure: string }
}

export type Drafter = (
  ctx: DraftContext,
  attempt: number,
  current: ReadonlyMap<string, string | null>,
  repair: RepairContext | undefined
) => Promise<Drafted>

export interface Drafted {
  edits: FileEdit[]
  placements: Record<string, Placement[]>
}

const NO_CHANGES = /^\s*NO_CHANGES\s*$/

/**
 * One model call per planned file (deletions need none), all at once up to `concurrency`, then
 * each reply turned into that file's new contents. Requests and replies are logged before any
 * reply is judged, so a refused reply is on record.
 */
export async function draftEdits(
  ctx: DraftContext,
  attempt: number,
  current: ReadonlyMap<string, string | null>,
  repair: RepairContext | undefined
): Promise<Drafted> {
  if (ctx.drafter) return withWritten(ctx, await ctx.drafter(ctx, attempt, current, repair))
  const written = ctx.written?.edit.path
  const changes = ctx.input.fix_plan.file_changes.filter((change) => change.path !== written)
  const asked = changes.filter((change) => change.operation !== 'DELETE')
  // Chosen on the file as the run found it, so a file keeps its format through the repairs.
  const formatOf = (path: string) => ctx.formatFor?.(ctx.base.get(path) ?? null) ?? ctx.format
  const requests = await Promise.all(
    asked.map(async (change) => ({
      path: change.path,
      messages: await messagesFor(ctx, formatOf(change.path), change, current, repair)
    }))
  )
  ctx.log.requests(attempt, requests)
  const replies = await mapConcurrent(requests, ctx.concurrency, async (request, _i, signal) => {
    const completion = await ctx.model.complete(request.messages, {
      signal,
      label: request.path,
      // Structured output where the endpoint has it; the reply is read as text either way.
      responseFormat: formatNamed(formatOf(request.path)).replySchema,
      acceptCutOff: true
    })
    if (completion.cutOff)
      ctx.logger.warn(
        `The reply for ${request.path} was cut off at the model's output limit: only what of it is whole is used`
      )
    return { path: request.path, text: completion.text, cutOff: completion.cutOff === true }
  })
  ctx.log.replies(attempt, replies)
  const edits: FileEdit[] = []
  const placements: Record<string, Placement[]> = {}
  for (const change of changes) {
    const before = ctx.base.get(change.path) ?? null
    const latest = current.get(change.path) ?? null
    if (change.operation === 'DELETE') {
      edits.push({ path: change.path, operation: change.operation, before, after: null })
      continue
    }
    const { text: reply, cutOff } = replies.find((r) => r.path === change.path)!
    // A repair may leave a file as it is; so may a draft of a file an adapter marked optional
    // (a follow-up on a failed check plans every file of the pull request): such a file is left
    // out of the change while it is still as it was.
    const optional = ctx.mayStayUnchanged?.(change.path) === true
    if (NO_CHANGES.test(reply) && (repair || optional)) {
      if (!(optional && latest === before))
        edits.push({ path: change.path, operation: change.operation, before, after: latest })
      continue
    }
    const read = readReply(formatOf(change.path), reply, { cutOff })
    // What the reply names and asks is judged before it meets the file: a name the policy
    // refuses, or a header asking for a mode, a link, a copy or a binary, is hostile, not
    // damaged (SECURITY_VIOLATION, no repair). Every draft call is for one planned file.
    guardReplyClaims(read.claims, ctx.policy, { oneFile: true })
    const drafted = editFromRead(read, change, latest, { style: ctx.style, cutOff })
    // The base's .editorconfig on the lines the draft adds, before the syntax gate sees them.
    if (ctx.prompter && drafted.edit.after !== null)
      drafted.edit.after = ctx.prompter.restyle(change.path, before, drafted.edit.after)
    await assertStillParses([drafted])
    if (drafted.claimedPath) {
      ctx.logger.warn(
        `The reply for ${change.path} named ${drafted.claimedPath}; applied to ${change.path}`
      )
    }
    ctx.logger.debug(`${change.path}: hunks placed ${drafted.placements.join(', ')}`)
    placements[change.path] = drafted.placements
    edits.push({
      path: change.path,
      operation: change.operation,
      before,
      after: drafted.edit.after
    })
  }
  return withWritten(ctx, { edits, placements })
}

/**
 * The reproduction joins the draft as written. A drafter that answers for every planned file
 * (code-commit) may name its path too: what it says there is dropped, never validated or
 * committed, so the test that failed on the base is the test that passes after.
 */
function withWritten(ctx: DraftContext, drafted: Drafted): Drafted {
  const written = ctx.written?.edit
  if (!written) return drafted
  const other = drafted.edits.find((edit) => edit.path === written.path)
  if (other && other.after !== null && other.after !== written.after)
    ctx.logger.warn(
      `The draft rewrote the reproduction ${written.path}; it is kept as it was written before the fix`
    )
  const edits = drafted.edits.filter((edit) => edit.path !== written.path)
  return { ...drafted, edits: [...edits, written] }
}

async function messagesFor(
  ctx: DraftContext,
  format: ReplyFormat,
  change: FileChange,
  current: ReadonlyMap<string, string | null>,
  repair: RepairContext | undefined
): Promise<ChatMessage[]> {
  const request = {
    format,
    issue: ctx.input.issue,
    change,
    planSteps: ctx.input.fix_plan.plan_steps,
    content: current.get(change.path) ?? null,
    repair: repair && repairOfFile(repair, ctx.base, current, change.path),
    reproduction: ctx.written && {
      path: ctx.written.edit.path,
      test: ctx.written.edit.after ?? '',
      failure: ctx.written.failure
    }
  }
  // model (issue 7): without `style`, the prompter reads the file's style from .editorconfig
  return ctx.prompter
    ? ctx.prompter.messages(request)
    : draftMessages({ ...request, style: ctx.style })
}
