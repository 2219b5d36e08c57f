import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'

/** A file or folder to upload under `name`, or a text written as the file `name`. */
export type ArtifactEntry = { path: string; name?: string } | { name: string; content: string }

interface ArtifactFiles {
  rootDirectory: string
  /** Absolute paths under rootDirectory. */
  files: string[]
}

const MAX_FILES = 2_000

/**
 * Copies what the artifact should hold into one fresh folder (result file, attempt-log folder,
 * summary), so the upload has a single root and clean names. Only regular files are copied (a
 * symbolic link in a log folder could point at anything); missing entries are skipped; text is
 * passed through `mask` on the way.
 */
export function collectArtifactFiles(
  entries: readonly ArtifactEntry[],
  options: { stagingDir?: string; mask?: (text: string) => string } = {}
): ArtifactFiles {
  const root =
    options.stagingDir ??
    mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), 'patchsmith-artifact-'))
  mkdirSync(root, { recursive: true })
  const files: string[] = []
  const mask = options.mask ?? ((text: string) => text)
  const put = (target: string, data: Buffer | string) => {
    if (files.length >= MAX_FILES) return
    mkdirSync(dirname(target), { recursive: true })
    if (typeof data === 'string') writeFileSync(target, mask(data))
    else if (data.includes(0)) writeFileSync(target, data)
    else writeFileSync(target, mask(data.toString('utf8')))
    files.push(target)
  }
  const copyTree = (source: string, target: string) => {
    let stat
    try {
      stat = lstatSync(source)
    } catch {
      return
    }
    if (stat.isFile()) put(target, readFileSync(source))
    else if (stat.isDirectory()) {
      for (const name of readdirSync(source).sort())
        copyTree(join(source, name), join(target, name))
    }
  }
  for (const entry of entries) {
    const name = safeName(entry.name ?? ('path' in entry ? entry.path : 'file'))
    if ('content' in entry) put(join(root, name), entry.content)
    else copyTree(entry.path, join(root, name))
  }
  return { rootDirectory: root, files }
}

interface UploadOutcome {
  uploaded: boolean
  /** Why nothing was uploaded. */
  reason?: string
  id?: number
}

/**
 * Uploads the collected files as one artifact. Outside a runner (no ACTIONS_RUNTIME_TOKEN)
 * nothing is uploaded and that is said, not thrown; an upload error is reported the same way.
 */
export async function uploadArtifact(name: string, files: ArtifactFiles): Promise<UploadOutcome> {
  if (!process.env.ACTIONS_RUNTIME_TOKEN) {
    return {
      uploaded: false,
      reason: 'not on a GitHub runner with artifact access (no ACTIONS_RUNTIME_TOKEN)'
    }
  }
  if (files.files.length === 0) return { uploaded: false, reason: 'no files to upload' }
  try {
    // Loaded only on a runner: the artifact client is the heaviest part of the bundle.
    const { DefaultArtifactClient } = await import('@actions/artifact')
    const { id } = await new DefaultArtifactClient().uploadArtifact(
      name,
      files.files,
      files.rootDirectory,
      { retentionDays: 30 }
    )
    return { uploaded: true, id }
  } catch (error) {
    return { uploaded: false, reason: (error as Error).message }
  }
}

/** A relative name without `..` or a leading slash: the last path segment of what was given. */
function safeName(name: string): string {
  const parts = relative('/', join('/', name)).split('/').filter(Boolean)
  return parts[parts.length - 1] || 'file'
}
