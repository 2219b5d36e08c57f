import { applyHunks, probeLineNumbers } from '../../apply-hunks.js'
import { revisionRefusal, sectionsToApply } from '../../diff-sections.js'
import { patchError } from '../../patch-error.js'
import type { FileInstruction, FilePatch, PlannedFile } from '../../types.js'
import type { ApplyContext, AppliedInstructions } from '../format.js'
import { repairedHunks } from './repair.js'

/**
 * A file's diff sections applied: all their hunks are placed in the original together, even from
 * several sections (a section a later block replaces left out when they cannot be). Shared by
 * every format whose replies may hold a diff.
 */
export function applyHunkInstructions(
  file: PlannedFile,
  instructions: readonly FileInstruction[],
  context: ApplyContext
): AppliedInstructions {
  const sections = instructions.flatMap((i) => (i.kind === 'hunks' ? [i.patch] : []))
  const content = file.content ?? ''
  if (sections.length === 0) return { content, located: [] }
  const all = sectionsToApply(sections)
  try {
    return placeSections(file, content, all, context)
  } catch (error) {
    // A diff a later block of the reply says it replaces is left out only when all of them
    // cannot be placed together (they change the same lines, an earlier one does not fit).
    // Diffs that all fit are all meant, whatever the prose between them says.
    const standing = sectionsToApply(sections.filter((section) => section.superseded !== true))
    if (!sections.some((section) => section.superseded) || standing.length === 0) {
      throw revisionRefusal(file.path, all.length, error)
    }
    try {
      return placeSections(file, content, standing, context)
    } catch (lastError) {
      throw revisionRefusal(file.path, standing.length, lastError)
    }
  }
}

function placeSections(
  file: PlannedFile,
  content: string,
  used: readonly FilePatch[],
  context: ApplyContext
): AppliedInstructions {
  let numbered = 0
  const index = context.indexOf(file)
  const hunks = used.flatMap((section) => {
    checkHunkEvidence(file, section, context.claimed)
    const patch = {
      ...section,
      hunks: section.hunks.map((hunk) => ({ ...hunk, number: ++numbered }))
    }
    return repairedHunks(file.path, patch, index)
  })
  const applied = applyHunks(file.path, content, hunks, {
    ...context.fresh,
    numbersContradicted: numbersContradicted(context),
    index
  })
  return { content: applied.content, located: applied.located }
}

const contradictedByReply = new WeakMap<ApplyContext['reply'], boolean>()

/** Whether hunks of any file of the reply were found away from their line numbers. */
function numbersContradicted(context: ApplyContext): boolean {
  let contradicted = contradictedByReply.get(context.reply)
  if (contradicted === undefined) {
    contradicted = context.reply.some(({ file, instructions }) =>
      instructions.some(
        (i) =>
          i.kind === 'hunks' &&
          file.content !== null &&
          probeLineNumbers(context.indexOf(file), i.patch.hunks) === 'contradicted'
      )
    )
    contradictedByReply.set(context.reply, contradicted)
  }
  return contradicted
}

/**
 * Without line numbers a hunk is placed by its lines alone, so the rest of the reply has to be
 * intact: a header that names another path, or that git's `a/`/`b/` rule could not read, leaves
 * nothing to corroborate the place, and the hunk is refused. A new file needs whole "+" hunks.
 */
function checkHunkEvidence(file: PlannedFile, patch: FilePatch, claimed: string | undefined): void {
  if (file.content === null && patch.hunks.some((h) => h.lines.some((l) => l.kind !== '+'))) {
    throw patchError(
      `${file.path} does not exist yet: send its whole content as "+" lines of one hunk, from "--- /dev/null" to "+++ b/${file.path}".`,
      { kind: 'create-expected', file: file.path }
    )
  }
  const bare = patch.hunks.findIndex((h) => h.oldStart === null)
  if (bare < 0 || !patch.headed) return
  const named = patch.newPath ?? patch.oldPath
  if (claimed === undefined && patch.prefixed && named === file.path) return
  throw patchError(
    `Hunk ${bare + 1} for ${file.path} has no line numbers, and the header names ${named ?? '/dev/null'}` +
      `${patch.prefixed ? '' : ' without the a/ and b/ prefixes'}, so nothing in the reply confirms where it goes. ` +
      `Send "--- a/${file.path}" and "+++ b/${file.path}" headers and "@@ -<line>,<count> +<line>,<count> @@" hunk headers with the real line numbers.`,
    { kind: 'unanchored-hunk', file: file.path, hunk: bare + 1 }
  )
}
