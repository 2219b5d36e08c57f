import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { contractJsonSchemas } from '../src/contract/json-schemas.js'
import {
  codeAgentInputSchema,
  codeAgentOutputSchema,
  fixPlanSchema,
  issueSchema,
  lazySchema,
  PatchsmithError,
  toAgentError
} from '../src/contract/index.js'
import { PROJECT_ROOT } from './support/action-runner.js'

describe('lazySchema', () => {
  it('builds a schema on its first use, once, and keeps it', () => {
    let builds = 0
    const schema = lazySchema(() => {
      builds++
      return z.string().min(2)
    })
    expect(builds).toBe(0)
    const first = schema()
    expect(schema()).toBe(first)
    expect(builds).toBe(1)
    expect(first.safeParse('a').success).toBe(false)
  })

  it('shares one instance of a contract schema with the schemas built from it', () => {
    expect(fixPlanSchema()).toBe(fixPlanSchema())
    expect(codeAgentInputSchema().shape.fix_plan).toBe(fixPlanSchema())
    expect(codeAgentInputSchema().shape.issue).toBe(issueSchema())
  })
})

describe('the committed JSON Schemas', () => {
  it('are what `npm run schemas` writes from the zod contract', () => {
    const generated = contractJsonSchemas()
    const committed = readdirSync(join(PROJECT_ROOT, 'schemas')).filter((name) =>
      name.endsWith('.json')
    )
    expect(committed.sort()).toEqual(
      Object.keys(generated)
        .map((name) => `${name}.json`)
        .sort()
    )
    for (const [name, schema] of Object.entries(generated)) {
      const file = JSON.parse(readFileSync(join(PROJECT_ROOT, 'schemas', `${name}.json`), 'utf8'))
      expect(file, `schemas/${name}.json is stale: run npm run schemas`).toEqual(schema)
    }
  })

  it('refuse unknown plan keys, as the zod schema does', () => {
    const plan = contractJsonSchemas()['fix-plan'] as { additionalProperties?: boolean }
    expect(plan.additionalProperties).toBe(false)
    expect(
      fixPlanSchema().safeParse({
        branch_name: 'a',
        plan_steps: [],
        file_changes: [],
        validation_commands: [],
        x: 1
      }).success
    ).toBe(false)
  })
})

describe('the contract types', () => {
  it('accept the seed example output and refuse a bad commit subject', () => {
    const commit = {
      issue_number: 42,
      message: 'docs(readme): correct typo in installation section\n\nFixes #42',
      diff: '',
      files_changed: ['README.md'],
      timestamp: '2025-12-02T10:01:30Z',
      validation_results: [
        { command: 'npm run lint', exit_code: 0, stdout: '', stderr: '', duration_ms: 1234 }
      ],
      sha: 'a'.repeat(40),
      branch: 'docs/42-fix-typo-readme',
      patch_id: 'b'.repeat(40)
    }
    expect(codeAgentOutputSchema().safeParse({ success: true, data: [commit] }).success).toBe(true)
    const bad = { ...commit, message: 'Fixed the typo' }
    expect(codeAgentOutputSchema().safeParse({ success: true, data: [bad] }).success).toBe(false)
    expect(
      codeAgentOutputSchema().safeParse({ success: true, data: [{ ...commit, sha: 'abc' }] })
        .success
    ).toBe(false)
  })

  it('keep an issue from an event payload, dropping its extra fields', () => {
    const issue = issueSchema().parse({
      number: 1,
      title: 'A title',
      body: null,
      user: { login: 'x' }
    })
    expect(issue).toEqual({ number: 1, title: 'A title', body: '' })
  })

  it('turn errors into AgentError objects with their code and details', () => {
    const error = new PatchsmithError('BRANCH_EXISTS', 'exists', { branch: 'b' })
    expect(toAgentError(error)).toEqual({
      code: 'BRANCH_EXISTS',
      message: 'exists',
      details: { branch: 'b' },
      recoverable: false
    })
    expect(toAgentError(new Error('boom')).message).toContain('boom')
  })
})
