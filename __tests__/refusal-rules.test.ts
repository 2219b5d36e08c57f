import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../scripts/action-docs.js'
import { REFUSAL_RULES } from '../src/contract/index.js'
import { SECURITY_REASONS } from '../src/policy/index.js'

const security = readFileSync(join(PROJECT_ROOT, 'SECURITY.md'), 'utf8')

/** The rules SECURITY.md's "Refusal rules" table names, in its order. */
function documentedRules(): string[] {
  const section = /^## Refusal rules\n([\s\S]*?)(?=^## )/m.exec(security)?.[1]
  expect(section, 'SECURITY.md has a "## Refusal rules" section').toBeDefined()
  return [...section!.matchAll(/^\| `([^`]+)` +\|/gm)].map((match) => match[1]!)
}

describe('refusal rules', () => {
  it('SECURITY.md documents every rule of src/contract/refusal-rules.ts and names no other', () => {
    const documented = documentedRules()
    const typed = Object.keys(REFUSAL_RULES)
    expect(new Set(documented).size, 'a rule is listed twice').toBe(documented.length)
    expect(documented.filter((rule) => !(rule in REFUSAL_RULES))).toEqual([])
    expect(typed.filter((rule) => !documented.includes(rule))).toEqual([])
  })

  it('SECURITY.md gives each rule the meaning the code gives it', () => {
    const rows = new Map(
      [...security.matchAll(/^\| `([^`]+)` +\| (.*?) +\|$/gm)].map((m) => [m[1], m[2]])
    )
    for (const [rule, why] of Object.entries(REFUSAL_RULES)) expect(rows.get(rule), rule).toBe(why)
  })

  it('the E_* reasons map only to rules that exist', () => {
    const named = Object.values(SECURITY_REASONS).flatMap((reason) => [...reason.rules])
    expect(named.filter((rule) => !(rule in REFUSAL_RULES))).toEqual([])
  })
})
