import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  printableMessage,
  withPatchsmithTrailer,
  withSignoff,
  type Git,
  committerIdent,
  blobId
} from '../git/index.js'
import { sparseTree, type TreeChange } from './sparse-tree.js'

/** A file as approved: its path and its contents (null: deleted). */
export interface ApprovedFile {
  path: string
  content: string | null
}

/**
 * Makes a commit on `parent` whose tree is `parent`'s with exactly the approved files, built
 * from their approved contents: only the folders on their paths are read and written
 * (sparseTree), or in the unusual cases the whole tree in a private index. Nothing validation could have left in the shared index or the work tree reaches
 * it. The message is cleaned as `git commit --cleanup=whitespace` would, and signed off as
 * `--signoff` would. Returns the new commit's SHA and its whole message as git stores it
 * (trimmed, as `git log --format=%B`); no ref is moved.
 */
export async function commitApproved(
  git: Git,
  parent: string,
  files: readonly ApprovedFile[],
  message: string,
  options: { signoff: boolean }
): Promise<{ sha: string; message: string }> {
  const scratch = mkdtempSync(join(tmpdir(), 'patchsmith-commit-'))
  try {
    const kept = files.filter((file) => file.content !== null)
    const blobs = await hashBlobs(git, scratch, kept, parent.length)
    const blobOf = new Map(kept.map((file, i) => [file.path, blobs[i]!]))
    const changes = files.map((file) => ({ path: file.path, blob: blobOf.get(file.path) ?? null }))
    const tree =
      (await sparseTree(git, parent, changes)) ??
      (await privateIndexTree(git, scratch, parent, changes))
    const text = await finalMessage(git, message, options.signoff)
    const out = await git.exec(['commit-tree', tree, '-p', parent, '-F', '-'], { input: text })
    return { sha: out.stdout.trim(), message: text.trim() }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** The unusual cases sparseTree leaves: `parent` read whole into a private index. */
async function privateIndexTree(
  git: Git,
  scratch: string,
  parent: string,
  changes: readonly TreeChange[]
): Promise<string> {
  const env = { GIT_INDEX_FILE: join(scratch, 'index') }
  await git.exec(['read-tree', parent], { env })
  const kept = changes.filter((change) => change.blob !== null)
  const modes = await modesAt(
    git,
    parent,
    kept.map((change) => change.path)
  )
  const entries = [
    ...kept.map((change) => `${modes.get(change.path) ?? '100644'} ${change.blob}\t${change.path}`),
    ...changes
      .filter((change) => change.blob === null)
      .map((change) => `0 ${'0'.repeat(40)}\t${change.path}`)
  ]
  await git.exec(['update-index', '-z', '--index-info'], {
    env,
    input: entries.map((entry) => `${entry}\0`).join('')
  })
  return (await git.exec(['write-tree'], { env })).stdout.trim()
}

/**
 * The approved bytes as blobs, exactly (no clean filters, no line-ending conversion): their ids
 * computed here, and only those git does not have yet written (after `git apply --index` the
 * staged ones are there already), with one `hash-object -w` whose ids must be the same.
 */
async function hashBlobs(
  git: Git,
  scratch: string,
  files: readonly ApprovedFile[],
  hexLength: number
) {
  const bytes = files.map((file) => Buffer.from(file.content!))
  const ids = bytes.map((content) => blobId(content, hexLength))
  const present = await git.objects.has(ids)
  const missing = ids.flatMap((id, i) => (present[i] ? [] : [i]))
  if (missing.length === 0) return ids
  const paths = missing.map((i) => {
    const path = join(scratch, `blob-${i}`)
    writeFileSync(path, bytes[i]!)
    return path
  })
  const out = await git.exec(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
    input: `${paths.join('\n')}\n`
  })
  const written = out.stdout.trim().split('\n')
  if (written.join(' ') !== missing.map((i) => ids[i]).join(' '))
    throw new Error(`hash-object wrote other blobs than computed: ${written.join(' ')}`)
  return ids
}

/** Each path's mode in `parent` (an executable stays executable); new files are 100644. */
async function modesAt(git: Git, parent: string, paths: readonly string[]) {
  const modes = new Map<string, string>()
  if (paths.length === 0) return modes
  const out = await git.exec(['ls-tree', '-z', parent, '--', ...paths])
  for (const entry of out.stdout.split('\0')) {
    const match = /^(\d{6}) blob [0-9a-f]+\t(.+)$/s.exec(entry)
    if (match) modes.set(match[2]!, match[1]!)
  }
  return modes
}

async function finalMessage(git: Git, message: string, signoff: boolean): Promise<string> {
  const clean = stripSpace(printableMessage(message))
  if (!signoff) return withPatchsmithTrailer(clean)
  const who =
    committerIdent(await git.configEntries()) ??
    (await git.exec(['var', 'GIT_COMMITTER_IDENT'])).stdout
      .trim()
      .replace(/\s+\d+\s+[+-]\d{4}$/, '')
  // Not `git interpret-trailers`: it runs every `trailer.<key>.cmd` the config names.
  return withPatchsmithTrailer(withSignoff(clean, who))
}

/**
 * `git stripspace` without a process, for a message printableMessage has cleaned (its only
 * whitespace controls are line feed and tab): trailing spaces and tabs off every line, blank
 * lines at the start and end dropped and runs of them made one, each line ended by a line feed.
 */
export function stripSpace(text: string): string {
  const lines: string[] = []
  let blank = false
  for (const line of text.split('\n')) {
    const kept = line.replace(/[ \t]+$/, '')
    if (kept === '') {
      blank = lines.length > 0
      continue
    }
    if (blank) lines.push('')
    blank = false
    lines.push(kept)
  }
  return lines.map((line) => `${line}\n`).join('')
}
