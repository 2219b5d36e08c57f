import type { ProtectedGroup } from './protected-classes.js'

/**
 * Classes by structure, not by name: a list of names cannot keep up with every new tool, agent
 * and CI system, but they keep their settings in dot-folders, and a program is a program
 * whatever it is called. Last in the table, so a named class gives its more precise reason.
 */
export const STRUCTURE_GROUPS: readonly ProtectedGroup[] = [
  {
    name: 'dot-folder',
    why: 'dot-folders hold the settings of tools, editors, agents and CI (known ones and new ones alike) that run code or steer an agent when the repository is opened or built',
    globs: ['**/.*/**'],
    editsOnly: true
  }
]

/**
 * A new file that starts with `#!` (or is created executable) is a program: a hook manager, a
 * build step or a developer may run it by name. Judged by content, in the edit guard.
 */
export const NEW_PROGRAM: ProtectedGroup = {
  name: 'new-program',
  why: 'a new file that starts with "#!" or is executable is a program something may run by name',
  globs: []
}

/** Whether a file created with these contents and mode is a program (a byte-order mark skipped). */
export function isNewProgram(contents: string, mode?: number): boolean {
  return (
    contents.replace(/^\uFEFF/, '').startsWith('#!') || (mode !== undefined && (mode & 0o111) !== 0)
  )
}
