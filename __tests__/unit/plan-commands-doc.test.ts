import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { toAgentError } from '../../src/contract/index.js'
import { assertCommandsAllowed } from '../../src/policy/command-policy.js'
import { PROJECT_ROOT } from '../../scripts/action-docs.js'

const inputs = readFileSync(join(PROJECT_ROOT, 'docs/inputs.md'), 'utf8')
const row = (name: string) => inputs.split('\n').find((line) => line.startsWith(`| \`${name}\``))!

describe("a plan's own validation_commands that are not trusted", () => {
  it('stop the run with SECURITY_VIOLATION, and docs/inputs.md says so (not that they are skipped)', () => {
    let thrown: unknown
    try {
      assertCommandsAllowed(['npm run evil'], ['npm test'], false)
    } catch (error) {
      thrown = error
    }
    expect(toAgentError(thrown)).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'command-not-allowed' }
    })
    expect(row('validation-commands')).toContain(
      'stops the run with SECURITY_VIOLATION (rule command-not-allowed); it is not skipped'
    )
    expect(row('validation-commands')).not.toMatch(/run only when/)
    expect(row('allow-plan-commands')).toContain(
      'such a command stops the run with SECURITY_VIOLATION'
    )
  })
})
