import { structuredPatch } from 'diff'
import type { FileEdit } from './types.js'

/**
 * Renders one git-style unified diff from old and new contents. This, never the model's own
 * text, is what `git apply --check` and `git apply` see, and what the commit reports.
 */
export function renderDiff(edits: readonly FileEdit[], mode = '100644'): string {
  return edits.map((edit) => renderFile(edit, mode)).join('')
}

function renderFile({ path, before, after }: FileEdit, mode: string): string {
  const header = [`diff --git a/${path} b/${path}`]
  if (before === null) header.push(`new file mode ${mode}`)
  if (after === null) header.push(`deleted file mode ${mode}`)
  const patch = structuredPatch(path, path, before ?? '', after ?? '', '', '', { context: 3 })
  if (patch.hunks.length === 0) return header.join('\n') + '\n'
  header.push(before === null ? '--- /dev/null' : `--- a/${path}`)
  header.push(after === null ? '+++ /dev/null' : `+++ b/${path}`)
  const body = patch.hunks.flatMap((hunk) => [
    `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`,
    ...hunk.lines
  ])
  return [...header, ...body].join('\n') + '\n'
}

function range(start: number, count: number): string {
  const from = count === 0 ? start - 1 : start
  return count === 1 ? `${from}` : `${from},${count}`
}
