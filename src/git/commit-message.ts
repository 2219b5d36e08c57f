import { COMMIT_SUBJECT, type TriageResult } from '../contract/index.js'

export type CommitType = 'fix' | 'feat' | 'docs' | 'chore' | 'refactor'
const TYPES: readonly CommitType[] = ['fix', 'feat', 'docs', 'chore', 'refactor']
const CLASSIFICATION_TYPES: Record<string, CommitType> = {
  bug: 'fix',
  bugfix: 'fix',
  fix: 'fix',
  feature: 'feat',
  feat: 'feat',
  enhancement: 'feat',
  docs: 'docs',
  documentation: 'docs',
  chore: 'chore',
  maintenance: 'chore',
  refactor: 'refactor'
}
// Markers that would let a commit skip CI, and trailers only the agent may add.
const SKIP_MARKERS = /\[(skip ci|ci skip|no ci|skip actions|actions skip)\]/gi

/** The commit type: from the triage classification, else the branch prefix, else `fix`. */
export function commitType(triage: TriageResult, branch: string): CommitType {
  const fromTriage = CLASSIFICATION_TYPES[(triage.classification ?? '').toLowerCase()]
  if (fromTriage) return fromTriage
  const prefix = branch.split('/')[0]?.toLowerCase() ?? ''
  return TYPES.find((type) => type === prefix) ?? CLASSIFICATION_TYPES[prefix] ?? 'fix'
}

/** The scope: the changed file's name for one root file, else the deepest shared folder. */
export function commitScope(paths: readonly string[]): string {
  const dirs = paths.map((path) => path.split('/').slice(0, -1))
  const shared: string[] = []
  for (let i = 0; dirs.every((dir) => dir[i] !== undefined && dir[i] === dirs[0]![i]); i++)
    shared.push(dirs[0]![i]!)
  const generic = new Set(['src', 'lib', 'app', 'packages', 'source'])
  const named = shared.filter((segment) => !generic.has(segment.toLowerCase()))
  const candidate =
    named[named.length - 1] ??
    (paths.length === 1 && shared.length === 0 ? stem(paths[0]!) : shared[shared.length - 1])
  return slug(candidate ?? '') || 'repo'
}

/** The deterministic subject used when the generated one does not validate. */
export function templateSubject(type: CommitType, scope: string, issueTitle: string): string {
  let description = withoutSkipMarkers(issueTitle.replace(/\s+/g, ' '))
    .trim()
    .replace(/[.!]+$/, '')
  description = description.charAt(0).toLowerCase() + description.slice(1)
  if (description.length < 10) description = `${description} (resolve issue)`.trim()
  if (description.length > 100) description = `${description.slice(0, 97).trimEnd()}...`
  return `${type}(${scope}): ${description}`
}

/** The first line of a generated subject, if it is a valid Conventional Commit subject. */
export function acceptSubject(generated: string | undefined): string | undefined {
  const line = (generated ?? '')
    .split('\n')
    .map((text) =>
      text
        .trim()
        .replace(/^`+|`+$/g, '')
        .trim()
    )
    .find((text) => text.length > 0)
  if (!line || line.replace(SKIP_MARKERS, '') !== line) return undefined
  const subject = line.replace(/\.$/, '')
  return COMMIT_SUBJECT.test(subject) ? subject : undefined
}

// Controls (all but line feed and tab) and the bidi and invisible marks that make a message read
// otherwise than it is: none comes from the model, an issue title or a hook into a commit.
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex -- control characters are what this removes
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g

/** The message as it will be committed: line feeds for line ends, nothing unprintable. */
export function printableMessage(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(UNPRINTABLE, '')
}

/**
 * Every commit Patchsmith makes ends with this trailer (after any sign-off): a follow-up takes a
 * pull request for Patchsmith's only when its token's user opened it and it starts with one.
 */
export const PATCHSMITH_TRAILER = 'Patchsmith-Commit: validated'

/**
 * The message with Patchsmith's trailer at its end: in the last paragraph when that is a trailer
 * block, else as a new one. Written here, not by `git interpret-trailers` or `commit --trailer`,
 * which run the programs a repository's `trailer.<key>.cmd` names.
 */
export function withPatchsmithTrailer(message: string): string {
  return withTrailer(message, PATCHSMITH_TRAILER, false)
}

/**
 * The message signed off as `git commit --signoff` would: `Signed-off-by: <who>` at the end of
 * its trailer block, unless the block already holds that very line. Written here for the same
 * reason as withPatchsmithTrailer.
 */
export function withSignoff(message: string, who: string): string {
  return withTrailer(message, `Signed-off-by: ${who}`, true)
}

/**
 * The message with `Patchsmith-Run: <url>`, the workflow run that made it, so every commit can be
 * traced to its logs; without a run (the command line) the message as it is.
 */
export function withRunTrailer(message: string, runUrl: string | undefined): string {
  return runUrl ? withTrailer(message, `Patchsmith-Run: ${runUrl}`, true) : message
}

function withTrailer(message: string, trailer: string, once: boolean): string {
  const text = message.replace(/\s+$/, '')
  const split = text.lastIndexOf('\n\n')
  const block = split < 0 ? [] : text.slice(split + 2).split('\n')
  const trailers = block.length > 0 && block.every((line) => TRAILER_LINE.test(line))
  if (once && trailers && block.includes(trailer)) return `${text}\n`
  return `${text}${trailers ? '\n' : '\n\n'}${trailer}\n`
}
const TRAILER_LINE = /^([A-Za-z0-9][A-Za-z0-9-]*:\s|\s)/

export function commitMessage(subject: string, issueNumber: number): string {
  return `${subject}\n\nFixes #${issueNumber}`
}

/** Removes skip markers until none is left: `[skip [skip ci]ci]` must not leave `[skip ci]`. */
function withoutSkipMarkers(text: string): string {
  let previous: string
  do {
    previous = text
    text = text.replace(SKIP_MARKERS, '')
  } while (text !== previous)
  return text
}

function stem(path: string): string {
  const name = path.split('/').pop() ?? path
  return name.replace(/^\.+/, '').replace(/\.[^.]*$/, '')
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 30)
    .replace(/-+$/, '')
}
