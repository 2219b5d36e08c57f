import { patchError } from './patch-error.js'
import type { FileInstruction, PlannedFile } from './types.js'

/**
 * Which planned file each part of the reply is for: every part must name one of them exactly,
 * except that a one-file reply for a one-file plan is for that file whatever path it names.
 */
export function route(
  instructions: readonly FileInstruction[],
  files: readonly PlannedFile[]
): Map<string, FileInstruction[]> {
  const routed = new Map<string, FileInstruction[]>()
  const add = (path: string, instruction: FileInstruction) =>
    routed.set(path, [...(routed.get(path) ?? []), instruction])
  const named = new Set(instructions.map((i) => i.path).filter((path) => path !== null))
  if (files.length === 1 && named.size <= 1) {
    for (const instruction of instructions) add(files[0]!.path, instruction)
    return routed
  }
  const planned = new Set(files.map((file) => file.path))
  for (const instruction of instructions) {
    const path = instruction.path
    if (instruction.kind === 'hunks' && instruction.patch.namesDisagree) {
      throw patchError(
        `The file names in the diff headers disagree (${[instruction.patch.oldPath, instruction.patch.newPath].join(' / ')}). ` +
          'Name each file you change the same way in "diff --git", "---" and "+++"; renames are not accepted.',
        { kind: 'path-mismatch', ...(path ? { file: path } : {}) }
      )
    }
    if (path !== null && planned.has(path)) {
      add(path, instruction)
      continue
    }
    const request = files.map((file) => file.path).join(', ')
    if (path === null) {
      throw patchError(
        `Part of the reply names no file, and this request is for ${files.length} files (${request}); name the file of every part.`,
        { kind: 'missing-file' }
      )
    }
    throw patchError(
      files.length === 1
        ? `The reply also edits ${path}; this request is for ${request} only. Send the edit for that file alone.`
        : `The reply edits ${path}, which is not one of the files of this request (${request}).`,
      { kind: files.length === 1 ? 'too-many-files' : 'unplanned-file', file: path }
    )
  }
  return routed
}
