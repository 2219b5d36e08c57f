/**
 * Issue 24 points 10 and 11 through whole runs (in-process, real repository, loopback model and
 * GitHub, the real sandbox): encoded secrets never reach the result, summary, logs or comments;
 * a change holding one, or an invisible character in code, is refused with nothing written.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { base32, rot13 } from '../../src/secrets/index.js'
import { CANARY, channels, leakedCanaries, written, type HostileRun } from './hostile-run.js'
import { trackedHostileRuns } from './tracked-runs.js'

const run = trackedHostileRuns()

function expectRefusedUnwritten(hostile: HostileRun, rule: string): void {
  const { result } = hostile
  expect(result.success, JSON.stringify(result.error)).toBe(false)
  expect(result.error!.code, result.error!.message).toBe('SECURITY_VIOLATION')
  expect(result.error!.details?.rule, result.error!.message).toBe(rule)
  expect(hostile.run.outputs.commits).toBe('[]')
  expect(written(hostile)).toEqual([])
  expect(leakedCanaries(hostile)).toEqual([])
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')

/** Encodings of the classes issue 24 names, as the test computes them. */
function encodings(value: string): string[] {
  const units = [...value].map((char) => char.charCodeAt(0))
  return [
    base32(Buffer.from(value)),
    base32(Buffer.from(value)).replace(/=/g, '').toLowerCase(),
    rot13(value),
    [...value].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(''),
    [...value].join('.'),
    [...value].join(' '),
    [...Buffer.from(value)].map((b) => `%${hex(b, 2).toUpperCase()}`).join(''),
    units.map((unit) => `\\u${hex(unit, 4)}`).join(''),
    Buffer.from(value, 'utf16le').toString('hex')
  ]
}

// The same encodings, made inside the sandbox from the validation-env value.
const LEAK_SCRIPT = `
for (const v of [process.env.EXTRA_SECRET, process.env.DATABASE_URL]) {
const b32 = (bytes) => { let out = '', buf = 0, bits = 0
  for (const byte of bytes) { buf = ((buf << 8) | byte) & 0xfff; bits += 8
    while (bits >= 5) { out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[(buf >>> (bits - 5)) & 31]; bits -= 5 } }
  if (bits > 0) out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[(buf << (5 - bits)) & 31]
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=') }
const rot = (s) => s.replace(/[a-z]/gi, (c) => { const b = c <= 'Z' ? 65 : 97; return String.fromCharCode((c.charCodeAt(0) - b + 13) % 26 + b) })
const forms = [b32(Buffer.from(v)), rot(v), v.toUpperCase(), [...v].join('-'), [...v].join('_'),
  [...Buffer.from(v)].map((b) => '%' + b.toString(16).padStart(2, '0')).join(''),
  [...v].map((c) => '\\\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join(''),
  Buffer.from(v, 'utf16le').toString('hex')]
for (const form of forms) { console.log('leak: ' + form); console.error('leak: ' + form) }
}
process.exit(3)
`

describe('encoded secrets in a real run (issue 24, point 10)', () => {
  it('masks every encoding in the result, summary, logs, comments and printed log', async () => {
    const printed = [CANARY.token, CANARY.apiKey, CANARY.extra].flatMap(encodings)
    const hostile = await run({
      setup: (repo) => {
        writeFileSync(join(repo.dir, 'leak.txt'), `${printed.join('\n')}\n`)
        writeFileSync(join(repo.dir, 'leak.js'), LEAK_SCRIPT)
      },
      inputs: {
        'validation-commands': 'cat leak.txt; cat leak.txt >&2; node leak.js',
        // DATABASE_URL: a name the masker does not know as secret; listing it makes it one.
        'validation-env': 'EXTRA_SECRET\nDATABASE_URL'
      }
    })
    expect(hostile.result.error?.code).toBe('VALIDATION_FAILED')
    const output = channels(hostile)
    // The sandboxed script did print (masked) what it made from the value it was given.
    expect(output.result).toContain('leak: ***')
    const made = [CANARY.extra, `postgres://app:${CANARY.database}@db:5432/app`].flatMap(
      (value) => [
        ...encodings(value),
        value.toUpperCase(),
        [...value].join('-'),
        [...value].join('_')
      ]
    )
    for (const [channel, text] of Object.entries(output))
      for (const form of [...printed, ...made])
        expect(text.includes(form), `${channel} holds ${form}`).toBe(false)
    expect(leakedCanaries(hostile)).toEqual([])
  })

  it('refuses a change that writes a known secret encoded (secret-in-change): nothing written', async () => {
    const encoded = base32(Buffer.from(CANARY.token)).replace(/=/g, '')
    const hostile = await run({
      reply: `--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,4 @@\n # Demo\n \n Hello\n+id: ${encoded}\n`
    })
    expectRefusedUnwritten(hostile, 'secret-in-change')
    expect(hostile.result.error!.details).toMatchObject({ path: 'README.md' })
    expect(JSON.stringify(hostile.result)).not.toContain(encoded)
  })
})

describe('invisible characters in a real run (issue 24, point 11)', () => {
  it('refuses a zero-width joiner in a .js identifier: nothing written, nothing committed', async () => {
    const hostile = await run({
      changes: [{ path: 'src/a.js', operation: 'MODIFY' }],
      reply:
        '--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1,2 @@\n export const a = 1\n+const a\u200Db = 1\n'
    })
    expectRefusedUnwritten(hostile, 'invisible-unicode')
    expect(hostile.result.error!.details).toMatchObject({
      path: 'src/a.js',
      line: 2,
      character: 'U+200D'
    })
    expect(hostile.repo.read('src/a.js')).toBe('export const a = 1\n')
  })

  it('refuses a joiner in Markdown by default, and commits it where unicode-text-paths lists the file', async () => {
    const reply =
      '--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,4 @@\n # Demo\n \n Hello\n+می\u200cخواهم\n'
    const refused = await run({ reply })
    expectRefusedUnwritten(refused, 'invisible-unicode')
    expect(refused.result.error!.details).toMatchObject({ path: 'README.md', character: 'U+200C' })
    const listed = await run({ reply, inputs: { 'unicode-text-paths': 'README.md' } })
    expect(listed.result.success, JSON.stringify(listed.result.error)).toBe(true)
    expect(listed.repo.gitOrigin('show', 'fix/5-hostile:README.md')).toContain('می\u200cخواهم')
  })
})
