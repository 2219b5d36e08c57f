import { InvalidInputError, type RefusalRule } from '../../contract/index.js'

/**
 * A malformed task file: INVALID_INPUT with the 1-based line (`details.line`) and the rule it
 * broke (id-format, checkbox, duplicate-id, dependency-format, unknown-dependency, cycle, no-file).
 */
export class TaskParseError extends InvalidInputError {
  constructor(
    message: string,
    readonly line: number,
    rule: RefusalRule
  ) {
    super(`Task file line ${line}: ${message}`, { field: 'task-file', line, rule })
  }
}

export interface Task {
  id: string
  /** 1-based line of the task in the file. */
  line: number
  done: boolean
  /** `[P]`: may be drafted together with the other `[P]` tasks ready at the same time. */
  parallel: boolean
  /** The task's text without its id, markers and `(after …)`. */
  description: string
  /** Indented lines under the task: more context for the model. */
  notes: string[]
  after: string[]
  /** Files named in the task's text and notes, in order of mention. */
  paths: string[]
}

export interface TaskFile {
  /** From a `Branch: name` line before the first task. */
  branch?: string
  tasks: Task[]
}

const TASK_ID = /^T\d{3,}$/
const CHECKBOX_LINE = /^[-*+]\s*\[/
const TASK = /^- \[( |x|X)\] (\S+)(?: (.*))?$/
const BARE_ID = /^[-*+]\s+T\d+\b/
const AFTER = /\(after\s+([^)]*)\)/gi
const MARKER = /^\[([^\]\s]+)\]\s*/
// Abbreviations that look like file names.
const PROSE = /^(e\.g|i\.e|etc|vs|cf|approx)\.?$/i
const BRANCH_LINE = /^branch:\s*(\S+)\s*$/i
// A path: folders and a file name with an extension, delimited by space, quotes, backticks or ().
const PATH =
  /(?<=^|[\s`'"(])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][\w]*)(?=$|[\s`'",;:)]|\.(?:\s|$))/g

/**
 * Parses a tasks.md: `- [ ] T001 [P] Description naming src/x.ts (after T000)`. Other lines
 * (headings, prose, plain bullets) are ignored; indented lines under a task are its notes.
 */
export function parseTaskFile(text: string): TaskFile {
  const file: TaskFile = { tasks: [] }
  let current: Task | undefined
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1
    const trimmed = raw.trim()
    if (current && trimmed && /^\s/.test(raw) && !CHECKBOX_LINE.test(trimmed)) {
      current.notes.push(trimmed)
      return
    }
    current = undefined
    if (!file.tasks.length && BRANCH_LINE.test(trimmed)) {
      file.branch = BRANCH_LINE.exec(trimmed)![1]
      return
    }
    if (CHECKBOX_LINE.test(trimmed) || BARE_ID.test(trimmed)) {
      current = parseTaskLine(trimmed, line)
      if (file.tasks.some((task) => task.id === current!.id)) {
        throw new TaskParseError(`${current.id} is defined twice.`, line, 'duplicate-id')
      }
      file.tasks.push(current)
    }
  })
  for (const task of file.tasks) {
    task.paths = pathsIn([task.description, ...task.notes].join('\n'))
    for (const dependency of task.after) {
      if (!file.tasks.some((other) => other.id === dependency)) {
        throw new TaskParseError(
          `${task.id} depends on ${dependency}, which is not in the file.`,
          task.line,
          'unknown-dependency'
        )
      }
    }
  }
  assertNoCycle(file.tasks)
  return file
}

function parseTaskLine(text: string, line: number): Task {
  const match = TASK.exec(text)
  if (!match) {
    throw new TaskParseError(
      `malformed checkbox: write "- [ ] T001 Description" (or "- [x]" for a done task), got "${text.slice(0, 60)}".`,
      line,
      'checkbox'
    )
  }
  const [, mark, id, rest = ''] = match
  if (!TASK_ID.test(id!)) {
    throw new TaskParseError(
      `"${id}" is not a task id: use T followed by three or more digits (T001).`,
      line,
      'id-format'
    )
  }
  let description = rest.trim()
  let parallel = false
  for (let marker = MARKER.exec(description); marker; marker = MARKER.exec(description)) {
    if (marker[1] === 'P') parallel = true
    description = description.slice(marker[0].length)
  }
  const after: string[] = []
  description = description
    .replace(AFTER, (_all, list: string) => {
      for (const ref of list.split(',').map((part) => part.trim())) {
        if (!TASK_ID.test(ref)) {
          throw new TaskParseError(
            `"(after ${list.trim()})" must list task ids such as T001, separated by commas.`,
            line,
            'dependency-format'
          )
        }
        if (!after.includes(ref)) after.push(ref)
      }
      return ''
    })
    .replace(/\s+/g, ' ')
    .trim()
  if (after.includes(id!)) {
    throw new TaskParseError(`${id} depends on itself.`, line, 'cycle')
  }
  if (!description) throw new TaskParseError(`${id} has no description.`, line, 'checkbox')
  return {
    id: id!,
    line,
    done: mark !== ' ',
    parallel,
    description,
    notes: [],
    after,
    paths: []
  }
}

function pathsIn(text: string): string[] {
  const paths: string[] = []
  for (const [, path] of text.matchAll(PATH)) {
    if (PROSE.test(path!)) continue
    if (path!.split('/').some((part) => part === '..' || part === '.')) continue
    if (!paths.includes(path!)) paths.push(path!)
  }
  return paths
}

function assertNoCycle(tasks: readonly Task[]): void {
  const byId = new Map(tasks.map((task) => [task.id, task]))
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (task: Task, path: string[]): void => {
    if (state.get(task.id) === 'done') return
    if (state.get(task.id) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(task.id)), task.id]
      throw new TaskParseError(`dependency cycle ${cycle.join(' → ')}.`, task.line, 'cycle')
    }
    state.set(task.id, 'visiting')
    for (const dependency of task.after) visit(byId.get(dependency)!, [...path, task.id])
    state.set(task.id, 'done')
  }
  tasks.forEach((task) => visit(task, []))
}
