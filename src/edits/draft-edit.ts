import { InvalidDiffError, type FileChange } from '../contract/index.js'
import { applyHunks } from './apply-hunks.js'
import { extractDiff } from './sanitize.js'
import type { FileEdit, Placement } from './types.js'
import { parseUnifiedDiff } from './udiff.js'

export interface DraftedEdit {
  edit: FileEdit
  placements: Placement[]
  /** The path the model wrote in its headers, when it differs from the planned one. */
  claimedPath?: string
}

/**
 * Turns one model reply (a unified diff for one planned file) into that file's new contents.
 * The call was for one file, so its edit lands on the planned path whatever the headers say;
 * a reply that edits several files is refused.
 */
export function editFromUdiffReply(
  reply: string,
  change: FileChange,
  current: string | null
): DraftedEdit {
  const patches = parseUnifiedDiff(extractDiff(reply))
  if (patches.length > 1) {
    throw new InvalidDiffError(
      `The reply edits ${patches.length} files; this request is for ${change.path} only. Send one diff for that file.`,
      { rule: 'too-many-files', path: change.path }
    )
  }
  const patch = patches[0]!
  const claimed = patch.newPath ?? patch.oldPath ?? undefined
  if (
    change.operation === 'CREATE' &&
    current === null &&
    patch.oldPath !== null &&
    patch.hunks.some(hasOldLines)
  ) {
    throw new InvalidDiffError(
      `${change.path} is a new file: send its whole content as "+" lines from /dev/null.`,
      {
        rule: 'create-expected',
        path: change.path
      }
    )
  }
  const applied = applyHunks(change.path, current ?? '', patch.hunks)
  const after = patch.newPath === null && change.operation === 'DELETE' ? null : applied.content
  return {
    edit: { path: change.path, operation: change.operation, before: current, after },
    placements: applied.placements,
    claimedPath: claimed && claimed !== change.path ? claimed : undefined
  }
}

const hasOldLines = (hunk: { lines: { kind: string }[] }) =>
  hunk.lines.some((line) => line.kind !== '+')
