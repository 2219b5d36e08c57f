import { minimatch } from 'minimatch'
import { SecurityViolationError } from '../contract/index.js'
import { type SecretMasker, scanAddedLines } from '../secrets/index.js'
import { printable, violationError, type PathPolicy } from './path-policy.js'
import { MANIFEST_GLOB, MANIFEST_PROTECTED_FIELDS } from './protected-paths.js'
import { isNewProgram, NEW_PROGRAM } from './protected-structure.js'
import { assertRepoPaths, type GitRunner } from './repo-paths.js'
import { unicodeTextMatcher } from './unicode-text.js'

/** One file's change as new contents (the shape every edit format ends in). */
export interface GuardedEdit {
  path: string
  operation: 'MODIFY' | 'CREATE' | 'DELETE'
  before: string | null
  after: string | null
}

interface EditGuardOptions {
  /** The plan's file changes: an edit to any other path is refused (rule outside-plan). */
  planned: ReadonlyArray<{ path: string; operation: string }>
  /** The run's known secrets: added lines holding one stop the edit. */
  masker?: SecretMasker
  /** Globs of files whose text is content, beside the defaults (the `unicode-text-paths` setting). */
  unicodeTextPaths?: readonly string[]
}

const REFUSED_BECAUSE: Record<string, (what: string) => string> = {
  'secret-detected': (what) =>
    `an added line holds a secret (${what}); secrets are never committed`,
  'secret-in-change': () =>
    'an added line holds a known secret of this run, encoded; secrets are never committed',
  'invisible-unicode': (what) =>
    `an added line holds the invisible or bidi character ${what}, which can make code read ` +
    'other than it runs; a file whose text needs joiners or bidi marks (a translation) can be ' +
    'listed in "unicode-text-paths" (bidi overrides and tag characters stay refused there)'
}

const MAX_EDIT_FILES = 50
const MAX_EDIT_FILE_BYTES = 512 * 1024
const MAX_EDIT_TOTAL_BYTES = 2 * 1024 * 1024

/**
 * Every edit-level check, on the whole set before anything is written: size caps, the plan's
 * scope, the path policy with the work tree (symlinks on the way, gitignored paths), the
 * execution-relevant fields of package.json, and the added lines (secrets, bidi and invisible
 * characters). The first violation refuses the set with SECURITY_VIOLATION and its rule.
 */
export async function guardEdits(
  edits: readonly GuardedEdit[],
  policy: PathPolicy,
  repoDir: string,
  git: GitRunner,
  options: EditGuardOptions
): Promise<void> {
  assertSizes(edits)
  const planned = new Map(options.planned.map((change) => [change.path, change.operation]))
  for (const edit of edits) {
    const operation = planned.get(edit.path)
    if (operation === undefined || operation !== edit.operation) {
      throw new SecurityViolationError(
        `Refused to touch "${printable(edit.path)}" (edit): the plan does not ${operation ? `${edit.operation} it` : 'name it'} [rule outside-plan].`,
        { path: edit.path, rule: 'outside-plan', stage: 'edit' }
      )
    }
  }
  // Edited paths are planned paths (checked above), and those were asked of git check-ignore
  // before the run began; .gitignore itself is protected, so the answer cannot have changed.
  await assertRepoPaths(
    edits.map((edit) => edit.path),
    policy,
    repoDir,
    git,
    'edit',
    { askGitignore: false }
  )
  for (const edit of edits) {
    assertManifestFields(edit, policy)
    assertNoNewProgram(edit, policy)
  }
  const isText = unicodeTextMatcher(options.unicodeTextPaths)
  const finding = scanAddedLines(edits, options.masker, { isText })[0]
  if (finding) {
    throw new SecurityViolationError(
      `Refused the edit of "${printable(finding.path)}" at line ${finding.line}: ${REFUSED_BECAUSE[finding.rule]!(finding.what)} [rule ${finding.rule}].`,
      {
        path: finding.path,
        line: finding.line,
        rule: finding.rule,
        stage: 'edit',
        [finding.rule === 'invisible-unicode' ? 'character' : 'secret_rule']: finding.what
      }
    )
  }
}

function assertSizes(edits: readonly GuardedEdit[]): void {
  const tooLarge = (reason: string, details: Record<string, unknown>) =>
    new SecurityViolationError(`Refused the edit: ${reason} [rule input-too-large].`, {
      rule: 'input-too-large',
      stage: 'edit',
      ...details
    })
  if (edits.length > MAX_EDIT_FILES)
    throw tooLarge(`${edits.length} files is over the limit of ${MAX_EDIT_FILES}`, {
      files: edits.length
    })
  let total = 0
  for (const edit of edits) {
    const bytes = Buffer.byteLength(edit.after ?? '')
    total += bytes
    if (bytes > MAX_EDIT_FILE_BYTES)
      throw tooLarge(
        `${printable(edit.path)} would be ${bytes} bytes, over ${MAX_EDIT_FILE_BYTES}`,
        {
          path: edit.path
        }
      )
  }
  if (total > MAX_EDIT_TOTAL_BYTES)
    throw tooLarge(`the edits add up to ${total} bytes, over ${MAX_EDIT_TOTAL_BYTES}`, {
      bytes: total
    })
}

/**
 * package.json may change (a version, a description), but not what runs on install, test or
 * lint: its scripts, dependencies and package-manager fields, unless a maintainer allowed it.
 */
function assertManifestFields(edit: GuardedEdit, policy: PathPolicy): void {
  if (!minimatch(edit.path, MANIFEST_GLOB, { dot: true, nocase: true })) return
  if (policy.allowsProtected(edit.path)) return
  const before = manifestFields(edit.before)
  const after = manifestFields(edit.after)
  const changed =
    before === undefined || after === undefined
      ? ['(the whole file: it is not a JSON object)']
      : MANIFEST_PROTECTED_FIELDS.filter((field) => before[field] !== after[field])
  if (changed.length === 0) return
  throw violationError(
    {
      path: edit.path,
      rule: 'protected-path',
      group: 'package-manifest',
      reason:
        `the edit changes ${changed.join(', ')}, which decide what runs on install, test and lint; ` +
        'list the path in "allow-protected-paths" if the agent may change it'
    },
    'edit'
  )
}

/**
 * A new file that starts with `#!` is a program (a diff cannot create an executable one: modes
 * other than 100644 are refused as patch-mode), unless a maintainer allowed its path.
 */
function assertNoNewProgram(edit: GuardedEdit, policy: PathPolicy): void {
  if (edit.operation !== 'CREATE' || edit.after === null || !isNewProgram(edit.after)) return
  if (policy.allowsProtected(edit.path)) return
  throw violationError(
    {
      path: edit.path,
      rule: 'protected-path',
      group: NEW_PROGRAM.name,
      reason: `${NEW_PROGRAM.why}; list the path in "allow-protected-paths" if the agent may create it`
    },
    'edit'
  )
}

function manifestFields(content: string | null): Record<string, string | undefined> | undefined {
  if (content === null) return {}
  try {
    const parsed: unknown = JSON.parse(content)
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined
    const record = parsed as Record<string, unknown>
    return Object.fromEntries(
      MANIFEST_PROTECTED_FIELDS.map((field) => [field, JSON.stringify(record[field])])
    )
  } catch {
    return undefined
  }
}
