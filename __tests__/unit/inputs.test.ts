import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it, expect } from 'vitest'
import { InvalidInputError } from '../../src/contract/index.js'
import { loadAgentInput, MAX_INPUT_BYTES, readStructured } from '../../src/inputs/index.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'patchsmith-inputs-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function inputError(action: () => unknown): InvalidInputError {
  try {
    action()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError)
    expect((error as InvalidInputError).code).toBe('INVALID_INPUT')
    return error as InvalidInputError
  }
  throw new Error('expected INVALID_INPUT')
}

const plan = {
  branch_name: 'fix/issue-7',
  plan_steps: ['change the handler'],
  file_changes: [{ path: 'src/form.ts', operation: 'MODIFY', line_range: [3, 9] }],
  validation_commands: ['npm test']
}
const issue = { number: 7, title: 'Form accepts empty email', body: 'Steps: …' }

describe('readStructured', () => {
  it('reads a JSON file given relative to baseDir and given as an absolute path', () => {
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan))
    expect(readStructured('plan.json', 'fix-plan', dir)).toEqual(plan)
    expect(readStructured(join(dir, 'plan.json'), 'fix-plan', '/nonexistent')).toEqual(plan)
  })

  it('reads a YAML file', () => {
    writeFileSync(join(dir, 'issue.yml'), 'number: 7\ntitle: Form accepts empty email\n')
    expect(readStructured('issue.yml', 'issue', dir)).toEqual({
      number: 7,
      title: 'Form accepts empty email'
    })
  })

  it('reads inline JSON', () => {
    expect(readStructured(JSON.stringify(plan), 'fix-plan', dir)).toEqual(plan)
    expect(readStructured('  [1, 2]', 'x', dir)).toEqual([1, 2])
  })

  it('reads inline multi-line YAML', () => {
    const yaml = [
      'branch_name: fix/issue-7',
      'plan_steps:',
      '  - change the handler',
      'file_changes:',
      '  - path: src/form.ts',
      '    operation: MODIFY',
      '    line_range: [3, 9]',
      'validation_commands:',
      '  - npm test'
    ].join('\n')
    expect(readStructured(yaml, 'fix-plan', dir)).toEqual(plan)
  })

  it('refuses a missing file name that is not an object as unreadable-input', () => {
    const error = inputError(() => readStructured('missing-plan.json', 'fix-plan', dir))
    expect(error.details.rule).toBe('unreadable-input')
    expect(error.details.field).toBe('fix-plan')
    expect(error.message).toContain('missing-plan.json')
  })

  it('refuses a file that holds a scalar instead of an object as unreadable-input', () => {
    writeFileSync(join(dir, 'plan.yml'), 'just a sentence\n')
    const error = inputError(() => readStructured('plan.yml', 'fix-plan', dir))
    expect(error.details).toMatchObject({ field: 'fix-plan', rule: 'unreadable-input' })
    expect(error.message).toContain('holds no JSON/YAML object')
  })

  it('refuses YAML with duplicate keys as parse-error', () => {
    const error = inputError(() => readStructured('number: 1\ntitle: a\nnumber: 2\n', 'issue', dir))
    expect(error.details.rule).toBe('parse-error')
    expect(error.details.field).toBe('issue')
  })

  it('refuses bad YAML and bad JSON as parse-error', () => {
    expect(inputError(() => readStructured('a: [1, 2\nb: c\n', 'issue', dir)).details.rule).toBe(
      'parse-error'
    )
    expect(inputError(() => readStructured('{"a": 1,}', 'issue', dir)).details.rule).toBe(
      'parse-error'
    )
    writeFileSync(join(dir, 'bad.json'), '{"a": ')
    expect(inputError(() => readStructured('bad.json', 'issue', dir)).details.rule).toBe(
      'parse-error'
    )
  })

  it('refuses a __proto__ key in JSON and in YAML, and pollutes nothing', () => {
    const json = inputError(() =>
      readStructured('{"a": {"__proto__": {"polluted": true}}}', 'issue', dir)
    )
    expect(json.details.rule).toBe('forbidden-key')
    const yaml = inputError(() =>
      readStructured('a: 1\n__proto__:\n  polluted: true\n', 'issue', dir)
    )
    expect(yaml.details.rule).toBe('forbidden-key')
    writeFileSync(join(dir, 'evil.json'), '{"__proto__": {"polluted": true}}')
    expect(inputError(() => readStructured('evil.json', 'issue', dir)).details.rule).toBe(
      'forbidden-key'
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  it('refuses constructor and prototype keys', () => {
    expect(
      inputError(() => readStructured('{"constructor": {"prototype": 1}}', 'issue', dir)).details
        .rule
    ).toBe('forbidden-key')
  })

  it('accepts nesting well within the limit and refuses nesting deeper than 64 levels', () => {
    const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
    expect(readStructured(nested(40), 'issue', dir)).toBeTypeOf('object')
    const error = inputError(() => readStructured(nested(100), 'issue', dir))
    expect(error.details.rule).toBe('too-deep')
    const arrays = '['.repeat(100) + ']'.repeat(100)
    expect(inputError(() => readStructured(arrays, 'issue', dir)).details.rule).toBe('too-deep')
  })

  it('refuses a YAML plan nested 100 000 levels as too-deep, not as a parser crash', () => {
    for (const [name, text] of [
      ['flow.yaml', `steps: ${'['.repeat(100_000)}${']'.repeat(100_000)}`],
      ['block.yaml', `${'- '.repeat(100_000)}x`]
    ]) {
      const path = join(dir, name!)
      writeFileSync(path, text!)
      const error = inputError(() => readStructured(path, 'fix-plan', dir))
      expect(error.details.rule).toBe('too-deep')
      expect(error.message).toBe('Input "fix-plan" is nested deeper than 64 levels.')
    }
  })

  it('refuses inline text and files over 1 MiB as input-too-large', () => {
    const big = JSON.stringify({ body: 'x'.repeat(MAX_INPUT_BYTES) })
    const inline = inputError(() => readStructured(big, 'issue', dir))
    expect(inline.details.rule).toBe('input-too-large')
    expect(inline.details.bytes).toBe(Buffer.byteLength(big))
    writeFileSync(join(dir, 'big.json'), big)
    expect(inputError(() => readStructured('big.json', 'issue', dir)).details.rule).toBe(
      'input-too-large'
    )
    // Just under the cap is read.
    const fits = JSON.stringify({ body: 'x'.repeat(MAX_INPUT_BYTES - 100) })
    expect(readStructured(fits, 'issue', dir)).toEqual(JSON.parse(fits))
  })
})

describe('loadAgentInput', () => {
  const json = (value: unknown) => JSON.stringify(value)

  it('loads issue, triage and plan given inline and as files', () => {
    writeFileSync(join(dir, 'fix-plan.json'), json(plan))
    const input = loadAgentInput({
      issue: json(issue),
      fixPlan: 'fix-plan.json',
      triageResult: 'classification: bug\nrisk: low\n',
      baseDir: dir
    })
    expect(input.issue).toEqual(issue)
    expect(input.fix_plan).toEqual(plan)
    expect(input.triage_result).toEqual({ classification: 'bug', risk: 'low' })
  })

  it('refuses a plan with an unknown key, naming fix_plan', () => {
    const error = inputError(() =>
      loadAgentInput({
        issue: json(issue),
        fixPlan: json({ ...plan, shell: 'rm -rf /' }),
        baseDir: dir
      })
    )
    expect(error.details.field).toBe('fix_plan')
    expect(error.message).toContain('fix_plan')
    expect(error.message).toContain('shell')
  })

  it('names the field of a wrong operation', () => {
    const bad = { ...plan, file_changes: [{ path: 'src/form.ts', operation: 'RENAME' }] }
    const error = inputError(() =>
      loadAgentInput({ issue: json(issue), fixPlan: json(bad), baseDir: dir })
    )
    expect(error.details.field).toBe('fix_plan.file_changes[0].operation')
    expect(error.message).toContain('fix_plan.file_changes[0].operation')
  })

  it('refuses duplicate paths in file_changes', () => {
    const bad = {
      ...plan,
      file_changes: [
        { path: 'src/form.ts', operation: 'MODIFY' },
        { path: 'src/form.ts', operation: 'DELETE' }
      ]
    }
    const error = inputError(() =>
      loadAgentInput({ issue: json(issue), fixPlan: json(bad), baseDir: dir })
    )
    expect(String(error.details.field)).toMatch(/^fix_plan\.file_changes/)
    expect(error.message).toContain('only once')
  })

  it('refuses a missing fix plan', () => {
    const error = inputError(() => loadAgentInput({ issue: json(issue), baseDir: dir }))
    expect(error.details).toMatchObject({ field: 'fix_plan', rule: 'missing-input' })
    expect(error.message).toContain('fix-plan')
  })

  it('takes the issue from the event payload, ignoring its extra fields; triage defaults to {}', () => {
    const eventPath = join(dir, 'event.json')
    writeFileSync(
      eventPath,
      json({
        action: 'labeled',
        issue: {
          number: 42,
          title: 'Crash on save',
          body: null,
          user: { login: 'octocat', id: 1 },
          labels: [{ id: 5, name: 'bug', color: 'd73a4a' }, 'agent'],
          state: 'open',
          html_url: 'https://github.com/o/r/issues/42'
        },
        repository: { full_name: 'o/r' }
      })
    )
    const input = loadAgentInput({ fixPlan: json(plan), eventPath, baseDir: dir })
    expect(input.issue.number).toBe(42)
    expect(input.issue.title).toBe('Crash on save')
    expect(input.issue.body).toBe('')
    expect(input.issue.labels?.[0]).toMatchObject({ name: 'bug' })
    expect(input.issue.labels?.[1]).toBe('agent')
    expect(input.issue).not.toHaveProperty('user')
    expect(input.triage_result).toEqual({})
  })

  it('prefers the issue input over the event', () => {
    const eventPath = join(dir, 'event.json')
    writeFileSync(eventPath, json({ issue: { number: 1, title: 'from the event' } }))
    const input = loadAgentInput({
      issue: json(issue),
      fixPlan: json(plan),
      eventPath,
      baseDir: dir
    })
    expect(input.issue.number).toBe(issue.number)
  })

  it('loads a whole CodeAgentInput from agent-input', () => {
    writeFileSync(join(dir, 'other-plan.json'), json({ ...plan, branch_name: 'ignored' }))
    const whole = { issue, triage_result: { classification: 'bug' }, fix_plan: plan }
    writeFileSync(join(dir, 'agent-input.json'), json(whole))
    const input = loadAgentInput({
      agentInput: 'agent-input.json',
      fixPlan: 'other-plan.json',
      baseDir: dir
    })
    expect(input.fix_plan.branch_name).toBe('fix/issue-7')
    expect(input.triage_result).toEqual({ classification: 'bug' })
    expect(input.issue.number).toBe(7)
  })

  it('names the field inside a bad agent-input', () => {
    const whole = {
      issue,
      triage_result: {},
      fix_plan: { ...plan, file_changes: [{ path: 'a', operation: 'MOVE' }] }
    }
    const error = inputError(() => loadAgentInput({ agentInput: json(whole), baseDir: dir }))
    expect(error.details.field).toBe('fix_plan.file_changes[0].operation')
  })

  it('refuses a malformed event payload as INVALID_INPUT, not a crash', () => {
    writeFileSync(join(dir, 'event.json'), '{"issue": ')
    const error = inputError(() =>
      loadAgentInput({
        fixPlan: JSON.stringify(plan),
        eventPath: join(dir, 'event.json'),
        baseDir: dir
      })
    )
    expect(error.details).toMatchObject({ field: 'event', rule: 'parse-error' })
  })

  it('refuses a missing issue with a message naming the issue input', () => {
    const error = inputError(() => loadAgentInput({ fixPlan: json(plan), baseDir: dir }))
    expect(error.details).toMatchObject({ field: 'issue', rule: 'missing-input' })
    expect(error.message).toContain('"issue" input')
    const eventPath = join(dir, 'push-event.json')
    writeFileSync(eventPath, json({ ref: 'refs/heads/main' }))
    expect(
      inputError(() => loadAgentInput({ fixPlan: json(plan), eventPath, baseDir: dir })).details
        .field
    ).toBe('issue')
  })
})
