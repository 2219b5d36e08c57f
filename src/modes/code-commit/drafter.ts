import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Drafter } from '../../agent/index.js'
import { InvalidDiffError, type CodeAgentInput, type FileChange } from '../../contract/index.js'
import { editsFromRead, readReply, type PlannedFile } from '../../edits/index.js'
import { guardReplyClaims } from '../../policy/index.js'
import type { ChatMessage } from '../../model/index.js'
import type { CodeCommitProject } from './project.js'
import { repairMessages } from './prompts.js'

const MARKER = /^\^\^\^\s*(.*?)\s*$/

export interface InitialQuery {
  messages: ChatMessage[]
  reply: string
}

/** The paths a `^^^` reply names, and whether each block deletes its file. */
export function replyBlocks(reply: string): Array<{ path: string; deletes: boolean }> {
  const lines = reply.replace(/\r\n/g, '\n').split('\n')
  const blocks: Array<{ path: string; deletes: boolean }> = []
  for (let i = 0; i < lines.length; i++) {
    const name = MARKER.exec(lines[i]!)?.[1]?.replace(/^`+|`+$/g, '')
    if (!name || name === 'end' || name === 'delete') continue
    const deletes = MARKER.exec(lines[i + 1] ?? '')?.[1] === 'delete'
    blocks.push({ path: name, deletes })
    // Skip the content up to the block's closing marker.
    const end = lines.findIndex((line, k) => k > i && MARKER.test(line))
    i = end < 0 ? lines.length : end
  }
  return blocks
}

/**
 * The engine's input from the first reply: the files it replaces, creates or deletes are the
 * plan (so every one is guarded before anything is written), `build.sh` its validation.
 */
export function projectInput(
  project: CodeCommitProject,
  reply: string,
  repoDir: string,
  validation: string[]
): CodeAgentInput {
  const blocks = replyBlocks(reply)
  if (blocks.length === 0) {
    throw new InvalidDiffError(
      'The reply to the query holds no "^^^<path>" block: nothing to change.',
      { rule: 'no-edits' }
    )
  }
  const changes = new Map<string, FileChange>()
  for (const { path, deletes } of blocks) {
    const exists = existsSync(join(repoDir, path))
    changes.set(path, { path, operation: deletes ? 'DELETE' : exists ? 'MODIFY' : 'CREATE' })
  }
  const title = project.query.trim().split('\n')[0]!.trim().slice(0, 200) || 'code-commit query'
  return {
    // Seed code-commit has no issue: the query stands in for one (never commented on).
    issue: { number: 1, title, body: project.query.slice(0, 200_000) },
    triage_result: {},
    fix_plan: {
      branch_name: `code-commit/${slug(title)}`,
      plan_steps: [project.query.slice(0, 10_000)],
      file_changes: [...changes.values()],
      validation_commands: validation
    }
  }
}

/**
 * Drafts as seed code-commit: the first attempt is the initial query's reply, each repair one
 * call with the repair prompt. A repair may change only the files the first reply named (they
 * are the guarded plan); it is read with the engine's whole-file parser.
 */
export function codeCommitDrafter(
  project: CodeCommitProject,
  initial: () => InitialQuery
): Drafter {
  return async (ctx, attempt, current, repair) => {
    const files: PlannedFile[] = ctx.input.fix_plan.file_changes.map((change) => ({
      path: change.path,
      operation: change.operation,
      content: current.get(change.path) ?? null
    }))
    let messages: ChatMessage[]
    let reply: string
    if (attempt === 1 || !repair) {
      ;({ messages, reply } = initial())
    } else {
      messages = repairMessages(project, repair.failure, replaced(ctx.base, current))
      reply = (await ctx.model.complete(messages, { label: 'code-commit repair' })).text
    }
    ctx.log.requests(attempt, [{ path: '(all files)', messages }])
    ctx.log.replies(attempt, [{ path: '(all files)', text: reply }])
    // What the reply names and asks is judged first, whatever format it came in (a repair
    // reply may be a diff): a refused name or a mode, copy or binary header is hostile.
    const read = readReply('whole-file', reply)
    guardReplyClaims(read.claims, ctx.policy, { oneFile: files.length === 1 })
    const named = replyBlocks(reply).map((block) => block.path)
    const stray = named.filter((path) => !files.some((file) => file.path === path))
    if (stray.length > 0) {
      throw new InvalidDiffError(
        `The reply changes ${stray.join(', ')}; a repair may change only the files the first reply changed (${files.map((f) => f.path).join(', ')}).`,
        { rule: 'unplanned-path', paths: stray }
      )
    }
    const drafted = editsFromRead(read, files, { style: ctx.style })
    return {
      edits: drafted.map(({ edit }) => ({ ...edit, before: ctx.base.get(edit.path) ?? null })),
      placements: {}
    }
  }
}

/** The latest content of every file replaced so far (null: removed). */
function replaced(
  base: ReadonlyMap<string, string | null>,
  current: ReadonlyMap<string, string | null>
): Map<string, string | null> {
  const changed = new Map<string, string | null>()
  for (const [path, content] of current) if (content !== base.get(path)) changed.set(path, content)
  return changed
}

function slug(text: string): string {
  const words = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return words.slice(0, 40).replace(/-+$/, '') || 'change'
}
