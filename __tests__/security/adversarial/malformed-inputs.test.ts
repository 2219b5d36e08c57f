/**
 * SECURITY.md section (b), end to end, one theme of several: malformed and oversized inputs, and
 * diffs that only partly apply. A real repository with a bare origin, the GitHub loopback server
 * and a model scripted to be compromised; each refusal leaves nothing written and no canary in any
 * output (./refused.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CANARY } from '../hostile-run.js'
import { expectRefused, modify } from './refused.js'
import { trackedHostileRuns } from '../tracked-runs.js'

const run = trackedHostileRuns()

describe('H. malformed inputs (T63, T65, T67, T69, T72)', () => {
  it('T63: a huge issue body is capped before prompting', async () => {
    const hostile = await run({
      issue: {
        number: 5,
        title: 'Greet with more energy',
        body: `${'A long body. '.repeat(15_000)}END-MARKER`
      }
    })
    expect(hostile.result.success, JSON.stringify(hostile.result.error)).toBe(true)
    for (const request of hostile.model.requests)
      expect(JSON.stringify(request.body).length).toBeLessThan(60_000)
    expect(JSON.stringify(hostile.model.requests[0]!.body)).not.toContain('END-MARKER')
  })

  it.each([
    ['T65 deep JSON', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    [
      'T67 billion laughs',
      'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n'
    ],
    [
      'T67 js tag',
      'branch_name: !!js/function "function(){ return 1 }"\nplan_steps: []\nfile_changes: []\nvalidation_commands: []\n'
    ],
    [
      'T67 duplicate keys',
      'branch_name: a\nbranch_name: b\nplan_steps: []\nfile_changes: []\nvalidation_commands: []\n'
    ]
  ])('%s is INVALID_INPUT before anything runs', async (name, text) => {
    const file = name.includes('JSON') ? 'plan.json' : 'plan.yml'
    const hostile = await run({ planFile: { name: file, text } })
    expectRefused(hostile, { code: 'INVALID_INPUT', noModel: true })
  })

  it('T69: a diff whose second file does not apply leaves the first unwritten', async () => {
    const hostile = await run({
      changes: [...modify('src/a.js'), ...modify('README.md')],
      reply: (text) =>
        text.includes('src/a.js')
          ? '--- a/src/a.js\n+++ b/src/a.js\n@@ -1,99999 +1,99999 @@\n-export const a = 1\n+export const a = 2\n'
          : '--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-Not in the file\n+x\n'
    })
    expectRefused(hostile, { code: 'INVALID_DIFF' })
  })

  it('T72: an output flood is capped everywhere', async () => {
    const hostile = await run({
      setup: (repo) => writeFileSync(join(repo.root, 'token.txt'), CANARY.token),
      inputs: { 'validation-commands': 'yes "$(cat ../token.txt)" | head -c 20000000; exit 1' }
    })
    expectRefused(hostile, { code: 'VALIDATION_FAILED' })
    expect(readFileSync(join(hostile.repo.root, 'result.json'), 'utf8').length).toBeLessThan(
      200_000
    )
    for (const request of hostile.github.requests)
      expect(JSON.stringify(request.body ?? '').length).toBeLessThan(65_536)
  })
})
