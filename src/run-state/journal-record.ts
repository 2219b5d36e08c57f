import { posix } from 'node:path'
import { z } from 'zod'
import { lazySchema } from '../contract/index.js'

/** A full object name: SHA-1, or SHA-256 in a repository that uses it. */
const shaSchema = lazySchema(() =>
  z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'not a full commit SHA')
)

/**
 * What `git check-ref-format --branch` accepts, minus anything git's command lines could read as
 * something else: no leading '-' (an option), not `HEAD`, no `refs/` or `remotes/` prefix.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 255) return 'empty or longer than 255 characters'
  if (name.startsWith('-')) return 'starts with "-" (git would read an option)'
  if (name === 'HEAD' || name === '@') return `"${name}" is not a branch`
  if (/^(?:refs|remotes)\//.test(name)) return 'names a ref, not a branch'
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'holds a character git refuses in a ref'
  if (name.includes('..') || name.includes('@{') || name.includes('//'))
    return 'holds "..", "@{" or "//"'
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.'))
    return 'starts or ends with "/", or ends with "."'
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock')))
    return 'a part starts with "." or ends with ".lock"'
  return undefined
}

/** A path relative to the work tree, as Patchsmith writes them: no way out, no pathspec magic. */
export function journalPathProblem(path: string): string | undefined {
  if (path.length === 0 || path.length > 4096) return 'empty or too long'
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f\\]/.test(path)) return 'holds a control character or a backslash'
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'absolute'
  if (path.startsWith('-') || path.startsWith(':')) return 'starts like an option or pathspec magic'
  const parts = path.split('/')
  if (parts.some((part) => part === '' || part === '.' || part === '..'))
    return 'has an empty, "." or ".." part'
  if (parts[0]!.toLowerCase() === '.git' || posix.normalize(path) !== path) return 'not plain'
  return undefined
}

const branchSchema = lazySchema(() =>
  z.string().superRefine((name, ctx) => {
    const problem = branchNameProblem(name)
    if (problem) ctx.addIssue({ code: 'custom', message: `branch name ${problem}` })
  })
)

const workTreePathSchema = lazySchema(() =>
  z.string().superRefine((path, ctx) => {
    const problem = journalPathProblem(path)
    if (problem) ctx.addIssue({ code: 'custom', message: `path ${problem}` })
  })
)

/**
 * What a run must put back if it dies where no handler runs (SIGKILL, a runner that is gone):
 * written before each change to the repository, removed when the run has put everything back.
 * Every value is checked again when read: the file sits in `.git`, where others can write.
 */
const journalRecordSchema = lazySchema(() =>
  z
    .object({
      pid: z.number().int().positive(),
      started: z.string().max(64),
      /** The branch the run started on (absent: detached at `startHead`). */
      startBranch: branchSchema().optional(),
      startHead: shaSchema(),
      base: branchSchema(),
      baseSha: shaSchema(),
      branch: branchSchema(),
      /** The stash message, set before `git stash push`; the stash's SHA once it exists. */
      stashMessage: z
        .string()
        .max(400)
        .regex(/^patchsmith: [^\n]*$/)
        .optional(),
      stash: shaSchema().optional(),
      leftStart: z.boolean(),
      createdLocal: z.boolean(),
      /**
       * The plan branch's local tip before the run created it: null once the run knows it was
       * absent (it created it). A branch the run did not prove it created is never deleted.
       */
      localBefore: shaSchema().nullable().optional(),
      /** The same on origin, as read before anything was pushed. */
      remoteBefore: shaSchema().nullable().optional(),
      /** Set before the first apply: the work tree holds the run's edits from then on. */
      worktreeChanged: z.boolean(),
      /** push: false: commits were made on the base branch. */
      baseMoved: z.boolean(),
      /** The run's commits; a ref is moved or deleted only while its tip is one of them. */
      commits: z.array(shaSchema()).max(10_000),
      pushing: z.boolean(),
      /** Paths the run may have created (the plan's); only untracked files among them are removed. */
      touched: z.array(workTreePathSchema()).max(10_000),
      /**
       * The process groups the run had running (leader pid and start time in clock ticks since
       * boot): a recovery stops only those it can prove are still the run's (stopLeftovers).
       */
      processes: z
        .array(
          z.object({
            pid: z.number().int().min(2),
            startTime: z.string().regex(/^\d{1,20}$/)
          })
        )
        .max(1_000)
        .optional()
    })
    // Fields a newer Patchsmith adds are kept (they are under the same integrity tag).
    .loose()
)

export type JournalRecord = z.infer<ReturnType<typeof journalRecordSchema>>

/** The record, or the first thing wrong with it as a sentence. */
export function parseJournalRecord(
  value: unknown
): { record: JournalRecord } | { problem: string } {
  const parsed = journalRecordSchema().safeParse(value)
  if (parsed.success) return { record: parsed.data }
  const issue = parsed.error.issues[0]!
  return { problem: `${issue.path.join('.') || 'record'}: ${issue.message}` }
}
