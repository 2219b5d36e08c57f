import { existsSync, readFileSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import {
  InvalidInputError,
  issueSchema,
  triageResultSchema,
  type Issue,
  type TriageResult
} from '../../contract/index.js'
import { MAX_INPUT_BYTES, readStructured } from '../structured-text.js'
import { parseTaskFile, type TaskFile } from './parse.js'

interface TaskSources {
  taskFile: string
  issue?: string
  triageResult?: string
  eventPath?: string
  baseDir: string
}

export interface LoadedTasks {
  file: TaskFile
  /** The issue the tasks belong to: the `issue` input, else the triggering event's issue. */
  issue: Issue
  triage: TriageResult
}

/** Reads and parses the task file and the issue it belongs to; bad input is INVALID_INPUT. */
export function loadTasks(sources: TaskSources): LoadedTasks {
  const path = isAbsolute(sources.taskFile)
    ? sources.taskFile
    : resolve(sources.baseDir, sources.taskFile)
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new InvalidInputError(`Input "task-file": ${sources.taskFile} is not a readable file.`, {
      field: 'task-file',
      rule: 'unreadable-input'
    })
  }
  if (statSync(path).size > MAX_INPUT_BYTES) {
    throw new InvalidInputError(`Input "task-file" is larger than ${MAX_INPUT_BYTES} bytes.`, {
      field: 'task-file',
      rule: 'too-large'
    })
  }
  const file = parseTaskFile(readFileSync(path, 'utf8'))
  const issue = sources.issue
    ? readStructured(sources.issue, 'issue', sources.baseDir)
    : eventIssue(sources.eventPath)
  const parsedIssue = issueSchema().safeParse(issue)
  if (!parsedIssue.success) {
    throw new InvalidInputError(
      `Invalid issue: ${parsedIssue.error.issues[0]?.message ?? 'not an issue'}.`,
      { field: 'issue' }
    )
  }
  const triage = triageResultSchema().safeParse(
    sources.triageResult
      ? readStructured(sources.triageResult, 'triage-result', sources.baseDir)
      : {}
  )
  if (!triage.success) {
    throw new InvalidInputError(
      `Invalid triage_result: ${triage.error.issues[0]?.message ?? 'not a triage result'}.`,
      { field: 'triage_result' }
    )
  }
  return { file, issue: parsedIssue.data, triage: triage.data }
}

function eventIssue(eventPath: string | undefined): unknown {
  const payload: { issue?: unknown } =
    eventPath && existsSync(eventPath) ? (readStructured(eventPath, 'event', '/') as object) : {}
  if (!payload.issue) {
    throw new InvalidInputError(
      'A task file needs the issue it belongs to (its number goes into every commit): give the "issue" input, or run on an issues event.',
      { field: 'issue', rule: 'missing-input' }
    )
  }
  return payload.issue
}
