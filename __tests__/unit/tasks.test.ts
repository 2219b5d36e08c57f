import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '../../src/contract/index.js'
import {
  parseTaskFile,
  taskBatches,
  taskInput,
  TaskParseError
} from '../../src/inputs/tasks/index.js'

function parseError(text: string): TaskParseError {
  try {
    parseTaskFile(text)
  } catch (error) {
    expect(error).toBeInstanceOf(TaskParseError)
    expect(error).toBeInstanceOf(InvalidInputError)
    return error as TaskParseError
  }
  throw new Error('parsed without error')
}

describe('parseTaskFile', () => {
  it('reads ids, [P], (after …), done boxes, notes, labels and the files named', () => {
    const file = parseTaskFile(
      [
        '# Tasks',
        'Branch: feat/x-tasks',
        '',
        '- [x] T001 Set up in package.json',
        '- [ ] T002 [P] [US1] Add the model in `src/models/user.ts` (after T001)',
        '  - also touch src/models/index.ts, e.g. the export.',
        '- [ ] T003 [P] Write docs/USAGE.md and README.md. (after T001, T002)',
        '- plain bullet, ignored',
        'Prose mentioning T999 is ignored too.'
      ].join('\n')
    )
    expect(file.branch).toBe('feat/x-tasks')
    expect(file.tasks.map((t) => [t.id, t.line, t.done, t.parallel, t.after])).toEqual([
      ['T001', 4, true, false, []],
      ['T002', 5, false, true, ['T001']],
      ['T003', 7, false, true, ['T001', 'T002']]
    ])
    expect(file.tasks[1]!.description).toBe('Add the model in `src/models/user.ts`')
    expect(file.tasks[1]!.notes).toEqual(['- also touch src/models/index.ts, e.g. the export.'])
    expect(file.tasks[1]!.paths).toEqual(['src/models/user.ts', 'src/models/index.ts'])
    expect(file.tasks[2]!.paths).toEqual(['docs/USAGE.md', 'README.md'])
  })

  it.each([
    ['- [ ] T1 Short id in a.ts', 'id-format'],
    ['- [ ] 001 No T in a.ts', 'id-format'],
    ['- [] T001 Empty box in a.ts', 'checkbox'],
    ['- [ ]T001 No space in a.ts', 'checkbox'],
    ['-[ ] T001 No space after the dash in a.ts', 'checkbox'],
    ['- [y] T001 Odd mark in a.ts', 'checkbox'],
    ['- T001 No box at all in a.ts', 'checkbox'],
    ['- [ ] T001', 'checkbox'],
    ['- [ ] T001 Bad dependency in a.ts (after 1)', 'dependency-format'],
    ['- [ ] T001 Self in a.ts (after T001)', 'cycle']
  ])('refuses %j as %s on its line', (line, rule) => {
    const error = parseError(`# Tasks\n\n${line}\n`)
    expect(error.line).toBe(3)
    expect(error.toAgentError()).toMatchObject({
      code: 'INVALID_INPUT',
      details: { field: 'task-file', line: 3, rule }
    })
    expect(error.message).toMatch(/^Task file line 3: /)
  })

  it('refuses an unknown dependency, a duplicate id and a cycle, naming the line', () => {
    expect(parseError('- [ ] T001 A in a.ts\n- [ ] T002 B in b.ts (after T009)\n')).toMatchObject({
      line: 2,
      details: { rule: 'unknown-dependency' }
    })
    expect(parseError('- [ ] T001 A in a.ts\n\n- [ ] T001 B in b.ts\n')).toMatchObject({
      line: 3,
      details: { rule: 'duplicate-id' }
    })
    const cycle = parseError(
      '- [ ] T001 A in a.ts (after T003)\n- [ ] T002 B in b.ts (after T001)\n- [ ] T003 C in c.ts (after T002)\n'
    )
    expect(cycle.details.rule).toBe('cycle')
    expect(cycle.message).toContain('T001 → T003 → T002 → T001')
  })
})

describe('taskBatches', () => {
  const batches = (text: string) =>
    taskBatches(parseTaskFile(text).tasks).map((b) => b.map((t) => t.id))

  it('runs dependencies first, in file order otherwise, and batches [P] tasks ready together', () => {
    expect(
      batches(
        [
          '- [ ] T001 A in a.ts',
          '- [ ] T002 [P] B in b.ts (after T001)',
          '- [ ] T003 [P] C in c.ts (after T001)',
          '- [ ] T004 D in d.ts (after T002, T003)',
          '- [ ] T005 E in e.ts'
        ].join('\n')
      )
    ).toEqual([['T001'], ['T002', 'T003'], ['T004'], ['T005']])
  })

  it('moves a task after a later dependency, skips done ones, and splits [P] tasks sharing a file', () => {
    expect(
      batches(
        [
          '- [ ] T001 A in a.ts (after T003)',
          '- [x] T002 done in z.ts',
          '- [ ] T003 [P] C in c.ts (after T002)',
          '- [ ] T004 [P] D in c.ts',
          '- [ ] T005 [P] E in e.ts'
        ].join('\n')
      )
    ).toEqual([['T003', 'T005'], ['T001'], ['T004']])
  })
})

describe('taskInput', () => {
  const issue = { number: 12, title: 'Parent', body: 'Parent body' }
  it('makes a small plan: existing files MODIFY, missing ones CREATE, the task as the issue', () => {
    const [task] = parseTaskFile('- [ ] T001 Add a in src/a.ts and src/b.ts\n  keep it short').tasks
    const input = taskInput(task!, {
      issue,
      triage: {},
      branch: 'feat/12-tasks-t001',
      exists: (path) => path === 'src/a.ts'
    })
    expect(input.fix_plan.file_changes.map((c) => [c.path, c.operation])).toEqual([
      ['src/a.ts', 'MODIFY'],
      ['src/b.ts', 'CREATE']
    ])
    expect(input.issue.number).toBe(12)
    expect(input.issue.title).toBe('Add a in src/a.ts and src/b.ts')
    expect(input.issue.body).toContain('keep it short')
    expect(input.issue.body).toContain('Part of issue #12: Parent')
  })

  it('refuses a pending task that names no file, with its line', () => {
    const [task] = parseTaskFile('\n- [ ] T001 Make it faster').tasks
    expect(() => taskInput(task!, { issue, triage: {}, branch: 'b', exists: () => true })).toThrow(
      /line 2: T001 names no file/
    )
  })
})
