import { describe, expect, it } from 'vitest'
import { InvalidDiffError, type FileChange } from '../../src/contract/index.js'
import { editFromReply, editsFromReply, type PatchError } from '../../src/edits/index.js'

/** Every kind of damage models do to diffs, one at a time, on one small module. */

function refusal(action: () => unknown): InvalidDiffError & { patchError: PatchError } {
  try {
    action()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidDiffError)
    const refused = error as InvalidDiffError
    expect(refused.recoverable).toBe(true)
    return Object.assign(refused, { patchError: refused.details.patch_error as PatchError })
  }
  throw new Error('expected INVALID_DIFF')
}

const text = (...lines: string[]) => lines.map((line) => `${line}\n`).join('')

const FILE = text(
  "import { readFile } from 'node:fs/promises'",
  '',
  'export interface Options {',
  '  retries: number',
  '  timeout: number',
  '}',
  '',
  'export async function load(path: string, options: Options) {',
  '  let attempt = 0',
  '  while (attempt < options.retries) {',
  '    try {',
  "      return await readFile(path, 'utf8')",
  '    } catch (error) {',
  '      attempt++',
  '    }',
  '  }',
  "  throw new Error('gave up')",
  '}',
  '',
  'export function retriesFor(options: Options): number {',
  '  return options.retries',
  '}'
)

const CHANGE: FileChange = { path: 'src/load.ts', operation: 'MODIFY' }
const apply = (reply: string, change: FileChange = CHANGE, current: string | null = FILE) =>
  editFromReply('udiff', reply, change, current)

/** The fix every reply below means: retry up to `retries` times, inclusive, and say so. */
const FIXED = FILE.replace(
  '  while (attempt < options.retries) {',
  '  while (attempt <= options.retries) {'
).replace("  throw new Error('gave up')", '  throw new Error(`gave up after ${attempt} attempts`)')

const CLEAN = [
  'diff --git a/src/load.ts b/src/load.ts',
  'index 1111111..2222222 100644',
  '--- a/src/load.ts',
  '+++ b/src/load.ts',
  '@@ -8,7 +8,7 @@ export interface Options {',
  ' export async function load(path: string, options: Options) {',
  '   let attempt = 0',
  '-  while (attempt < options.retries) {',
  '+  while (attempt <= options.retries) {',
  '     try {',
  "       return await readFile(path, 'utf8')",
  '     } catch (error) {',
  '@@ -14,5 +14,5 @@ export async function load(path: string, options: Options) {',
  '       attempt++',
  '     }',
  '   }',
  "-  throw new Error('gave up')",
  '+  throw new Error(`gave up after ${attempt} attempts`)',
  ' }',
  ' '
].join('\n')

describe('udiff: damage that is recovered', () => {
  it('applies a clean diff exactly', () => {
    const drafted = apply(CLEAN)
    expect(drafted.edit.after).toBe(FIXED)
    expect(drafted.placements).toEqual(['exact', 'exact'])
    expect(drafted.located.map((place) => place.line)).toEqual([8, 14])
  })

  it.each([
    [
      'a ```diff fence with prose around it',
      `Here is the fix:\n\n\`\`\`diff\n${CLEAN}\n\`\`\`\n\nLet me know.\n`
    ],
    ['<tool_call> tags around it', `<tool_call>\n${CLEAN}\n</tool_call>\n`],
    ['the seed {diff, reasoning} JSON', JSON.stringify({ diff: CLEAN, reasoning: 'off by one' })],
    [
      'a submit_patch tool call whose arguments are a JSON string',
      JSON.stringify({
        name: 'submit_patch',
        arguments: JSON.stringify({ diff: CLEAN, reasoning: '' })
      })
    ],
    ['a fenced JSON reply', `\`\`\`json\n${JSON.stringify({ diff: CLEAN })}\n\`\`\`\n`],
    ['CRLF line endings', CLEAN.replace(/\n/g, '\r\n')],
    ['hunk headers without numbers (@@)', CLEAN.replace(/^@@ .*$/gm, '@@')],
    ['hunk headers without numbers (@@ ... @@)', CLEAN.replace(/^@@ .*$/gm, '@@ ... @@')],
    ['no a/ b/ prefixes', CLEAN.replace('--- a/', '--- ').replace('+++ b/', '+++ ')],
    ['no "diff --git" and "index" lines', CLEAN.split('\n').slice(2).join('\n')],
    [
      'line numbers off by a dozen',
      CLEAN.replace('-8,7 +8,7', '-20,7 +20,7').replace('-14,5 +14,5', '-2,5 +2,5')
    ],
    ['wrong line counts', CLEAN.replace('-8,7 +8,7', '-8,3 +8,12')],
    ['hunks in reverse order', reorder(CLEAN)],
    ['blank context lines without their leading space', CLEAN.replace(/\n $/, '\n')],
    ['context lines dropped at the edges', dropEdges(CLEAN)]
  ])('recovers %s', (_what, reply) => {
    expect(apply(reply).edit.after).toBe(FIXED)
  })

  it('keeps the file own context lines when the reply re-indents them (tabs)', () => {
    const reply = CLEAN.replace('   let attempt = 0', ' \tlet attempt = 0').replace(
      '     try {',
      ' \t\ttry {'
    )
    const drafted = apply(reply)
    expect(drafted.edit.after).toBe(FIXED)
    expect(drafted.placements[0]).toBe('whitespace')
    expect(drafted.located[0]!.whitespaceLines).toBe(2)
  })

  it('tolerates a copy slip in a context line and records the hunk as fuzzy', () => {
    const reply = CLEAN.replace(
      "return await readFile(path, 'utf8')",
      "return await readFlie(path, 'utf8')"
    )
    const drafted = apply(reply)
    expect(drafted.edit.after).toBe(FIXED)
    expect(drafted.placements).toEqual(['fuzzy', 'exact'])
    expect(drafted.located[0]!.fuzzyLines).toBe(1)
  })

  it('applies a one-file reply with a wrong header path to the planned file and reports the claim', () => {
    const drafted = apply(CLEAN.replaceAll('src/load.ts', 'load.ts'))
    expect(drafted.edit.path).toBe('src/load.ts')
    expect(drafted.edit.after).toBe(FIXED)
    expect(drafted.claimedPath).toBe('load.ts')
  })

  it('keeps CRLF line endings of a CRLF file, for an LF reply', () => {
    const crlf = FILE.replace(/\n/g, '\r\n')
    expect(apply(CLEAN, CHANGE, crlf).edit.after).toBe(FIXED.replace(/\n/g, '\r\n'))
  })

  it('keeps the other lines of a file with mixed line endings byte for byte', () => {
    const mixed = FILE.replace(
      "import { readFile } from 'node:fs/promises'\n",
      "import { readFile } from 'node:fs/promises'\r\n"
    )
    expect(apply(CLEAN, CHANGE, mixed).edit.after).toBe(
      FIXED.replace(
        "import { readFile } from 'node:fs/promises'\n",
        "import { readFile } from 'node:fs/promises'\r\n"
      )
    )
  })
})

describe('udiff: damage that is refused, with a patch_error that says what to fix', () => {
  it('refuses a removed line that does not exist, naming it and what the file has nearby', () => {
    const reply = CLEAN.replace(
      "-  throw new Error('gave up')",
      "-  if (!options.retryOnTimeout) throw new TimeoutError(request)\n-  throw new Error('gave up')"
    )
    const error = refusal(() => apply(reply))
    expect(error.patchError).toMatchObject({
      kind: 'removed-line-missing',
      file: 'src/load.ts',
      hunk: 2,
      expected: ['  if (!options.retryOnTimeout) throw new TimeoutError(request)']
    })
    expect(error.patchError.found_nearby!.text).toContain("  throw new Error('gave up')")
    expect(error.message).toContain('retryOnTimeout')
    expect(error.message).toMatch(/do not invent/)
  })

  it('refuses a hunk whose context is not in the file, showing the nearest lines', () => {
    const reply = CLEAN.replace('   let attempt = 0', '   let tries = 0').replace(
      '     try {',
      '     if (ready) {'
    )
    const error = refusal(() => apply(reply))
    expect(error.patchError.kind).toBe('hunk-not-found')
    expect(error.patchError.hunk).toBe(1)
    expect(error.patchError.found_nearby!.line).toBeGreaterThan(0)
    expect(error.message).toMatch(/Near line \d+ the file reads/)
  })

  it('refuses a hunk that matches several places the line number cannot settle', () => {
    const twice =
      FILE + text('', 'export function again(options: Options) {', '  return options.retries', '}')
    const reply =
      '--- a/src/load.ts\n+++ b/src/load.ts\n@@ -50,2 +50,2 @@\n-  return options.retries\n+  return options.retries + 1\n }\n'
    const error = refusal(() => apply(reply, CHANGE, twice))
    expect(error.patchError.kind).toBe('ambiguous-hunk')
    expect(error.details.matches).toEqual([21, 25])
    expect(error.message).toContain('add more unchanged lines')
  })

  it('settles the same hunk by an exact line number', () => {
    const twice =
      FILE + text('', 'export function again(options: Options) {', '  return options.retries', '}')
    const reply =
      '--- a/src/load.ts\n+++ b/src/load.ts\n@@ -25,2 +25,2 @@\n-  return options.retries\n+  return options.retries + 1\n }\n'
    const drafted = apply(reply, CHANGE, twice)
    expect(drafted.placements).toEqual(['hint'])
    expect(drafted.located[0]).toMatchObject({ line: 25, hintOffBy: 0 })
  })

  it('settles a hunk whose edge context was dropped by the window its header count leaves', () => {
    // Header says 4 old lines from line 9; only 1 is left, so it lies in lines 9-12: line 11.
    const twice = text('a', '  ]', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', '  ]', 'j')
    const reply = '--- a/src/load.ts\n+++ b/src/load.ts\n@@ -9,4 +9,5 @@\n   ]\n+  extra\n'
    const drafted = apply(reply, CHANGE, twice)
    expect(drafted.located[0]).toMatchObject({ line: 11, how: 'hint', hintOffBy: 0 })
    expect(drafted.edit.after).toBe(twice.replace('i\n  ]\n', 'i\n  ]\n  extra\n'))
  })

  const sections = text(
    'Intro',
    '',
    'First part.',
    '',
    '',
    'Second part.',
    '',
    '',
    'Third part.',
    '',
    'End.'
  )

  it('places a hunk of blank lines by its number when the other hunks confirm the numbers', () => {
    const reply = [
      '--- a/src/load.ts',
      '+++ b/src/load.ts',
      '@@ -4,2 +4,3 @@',
      ' ',
      '+New part.',
      ' ',
      '@@ -9,3 +10,3 @@',
      '-Third part.',
      '+Third part, revised.',
      ' ',
      ' End.'
    ].join('\n')
    const drafted = apply(reply, CHANGE, sections)
    expect(drafted.located.map((place) => [place.line, place.how])).toEqual([
      [4, 'hint'],
      [9, 'exact']
    ])
    expect(drafted.edit.after).toBe(
      sections
        .replace('First part.\n\n', 'First part.\n\nNew part.\n')
        .replace('Third part.', 'Third part, revised.')
    )
    // Alone, or with another hunk found away from its number, the blank lines are refused.
    const alone = reply.split('\n@@ -9')[0]!
    expect(refusal(() => apply(alone, CHANGE, sections)).patchError.kind).toBe('ambiguous-hunk')
    const contradicted = reply.replace('@@ -9,3 +10,3 @@', '@@ -2,3 +3,3 @@')
    expect(refusal(() => apply(contradicted, CHANGE, sections)).patchError.kind).toBe(
      'ambiguous-hunk'
    )
  })

  it("does not let line numbers settle a repeated hunk when the reply's other numbers are wrong", () => {
    const twice =
      FILE + text('', 'export function again(options: Options) {', '  return options.retries', '}')
    const repeated =
      '@@ -25,2 +25,2 @@\n-  return options.retries\n+  return options.retries + 1\n }\n'
    const shifted = CLEAN.replace('-8,7 +8,7', '-30,7 +30,7').replace(/\n $/, '\n') + repeated
    const error = refusal(() => apply(shifted, CHANGE, twice))
    expect(error.patchError).toMatchObject({ kind: 'ambiguous-hunk', hunk: 3 })
    expect(error.message).toContain('other hunks were not at their line numbers')
    // With the other numbers right, the same number settles it.
    expect(apply(CLEAN.replace(/\n $/, '\n') + repeated, CHANGE, twice).located[2]).toMatchObject({
      line: 25,
      how: 'hint'
    })
  })

  it('distrusts line numbers across files: one file numbered wrong, and the next is not settled by its', () => {
    const twice =
      FILE + text('', 'export function again(options: Options) {', '  return options.retries', '}')
    const repeated =
      '--- a/src/again.ts\n+++ b/src/again.ts\n@@ -25,2 +25,2 @@\n-  return options.retries\n+  return options.retries + 1\n }\n'
    const files = [
      { path: 'src/load.ts', operation: 'MODIFY' as const, content: FILE },
      { path: 'src/again.ts', operation: 'MODIFY' as const, content: twice }
    ]
    const right = CLEAN.replace(/\n $/, '\n') + repeated
    expect(editsFromReply('udiff', right, files)[1]!.located[0]).toMatchObject({
      line: 25,
      how: 'hint'
    })
    const wrong = right.replace('-8,7 +8,7', '-30,7 +30,7')
    const error = refusal(() => editsFromReply('udiff', wrong, files))
    expect(error.patchError).toMatchObject({ kind: 'ambiguous-hunk', file: 'src/again.ts' })
  })

  it("refuses lines added with no context unless the reply's other numbers are right", () => {
    const bare =
      '--- a/src/load.ts\n+++ b/src/load.ts\n@@ -6,0 +7,1 @@\n+export const VERSION = 2\n'
    expect(refusal(() => apply(bare)).patchError.kind).toBe('no-context')
    const withConfirmed = CLEAN.replace(/\n $/, '\n') + bare.split('\n').slice(2).join('\n')
    expect(apply(withConfirmed).edit.after).toBe(
      FIXED.replace('}\n\nexport async', '}\nexport const VERSION = 2\n\nexport async')
    )
  })

  it('needs the line number for a hunk whose lines are only brackets, even when they match once', () => {
    const brackets = text('const list = [', "  'a',", '  ]', '', 'done()')
    const reply = (start: number) =>
      `--- a/x\n+++ b/x\n@@ -${start},1 +${start},2 @@\n   ]\n+// end of list\n`
    expect(apply(reply(3), CHANGE, brackets).edit.after).toBe(
      brackets.replace('  ]\n', '  ]\n// end of list\n')
    )
    expect(refusal(() => apply(reply(40), CHANGE, brackets)).patchError.kind).toBe('weak-context')
  })

  it('refuses a hunk without line numbers whose header names another path', () => {
    const reply = CLEAN.replaceAll('src/load.ts', 'load.ts').replace(/^@@ .*$/gm, '@@')
    const error = refusal(() => apply(reply))
    expect(error.patchError).toMatchObject({
      kind: 'unanchored-hunk',
      file: 'src/load.ts',
      hunk: 1
    })
    expect(error.message).toContain('--- a/src/load.ts')
  })

  it('refuses a hunk without line numbers whose header lacks the a/ b/ prefixes', () => {
    const reply = CLEAN.split('\n')
      .slice(2)
      .join('\n')
      .replace('--- a/', '--- ')
      .replace('+++ b/', '+++ ')
      .replace(/^@@ .*$/gm, '@@')
    expect(refusal(() => apply(reply)).patchError.kind).toBe('unanchored-hunk')
  })

  it('refuses a hunk without line numbers whose context was re-indented throughout', () => {
    const reindented = [
      '--- a/src/load.ts',
      '+++ b/src/load.ts',
      '@@',
      ' \texport async function load(path: string, options: Options) {',
      ' \t\tlet attempt = 0',
      ' \t\twhile (attempt < options.retries) {',
      ' \t\t\ttry {',
      "+        console.log('attempt', attempt)",
      " \t\t\t\treturn await readFile(path, 'utf8')"
    ].join('\n')
    const error = refusal(() => apply(reindented))
    expect(error.patchError.kind).toBe('too-much-damage')
    expect(error.message).toContain('no line numbers')
    // The same hunk with its line numbers is placed: they corroborate the re-indented lines.
    const numbered = reindented.replace(/^@@$/m, '@@ -8,5 +8,6 @@')
    expect(apply(numbered).placements).toEqual(['whitespace'])
  })

  it('refuses a reply that also edits another file, in a call for one file', () => {
    const other = '--- a/src/other.ts\n+++ b/src/other.ts\n@@ -1 +1 @@\n-a\n+b\n'
    const error = refusal(() => apply(`${CLEAN}\n${other}`))
    expect(error.patchError).toMatchObject({ kind: 'too-many-files', file: 'src/other.ts' })
    expect(error.message).toContain('src/load.ts only')
  })

  it('refuses, in a multi-file reply, a part that names a file outside the request', () => {
    const other = '--- a/src/other.ts\n+++ b/src/other.ts\n@@ -1 +1 @@\n-a\n+b\n'
    const files = [
      { path: 'src/load.ts', operation: 'MODIFY' as const, content: FILE },
      { path: 'src/index.ts', operation: 'MODIFY' as const, content: 'a\n' }
    ]
    const error = refusal(() => editsFromReply('udiff', `${CLEAN}\n${other}`, files))
    expect(error.patchError).toMatchObject({ kind: 'unplanned-file', file: 'src/other.ts' })
  })

  it('applies each part of a multi-file reply to its own file', () => {
    const other = '--- a/src/index.ts\n+++ b/src/index.ts\n@@ -1 +1 @@\n-a\n+b\n'
    const edits = editsFromReply('udiff', `${CLEAN}\n${other}`, [
      { path: 'src/load.ts', operation: 'MODIFY', content: FILE },
      { path: 'src/index.ts', operation: 'MODIFY', content: 'a\n' },
      { path: 'README.md', operation: 'MODIFY', content: 'untouched\n' }
    ])
    expect(edits.map((drafted) => drafted.edit.after)).toEqual([FIXED, 'b\n', 'untouched\n'])
  })

  it('refuses headers whose names disagree (git would follow ---/+++)', () => {
    const reply = CLEAN.replace(
      'diff --git a/src/load.ts b/src/load.ts',
      'diff --git a/src/a.js b/src/a.js'
    )
    expect(refusal(() => apply(reply)).patchError.kind).toBe('path-mismatch')
  })

  it('refuses quoted (C-escaped) names', () => {
    const reply = CLEAN.replace(
      'diff --git a/src/load.ts b/src/load.ts',
      'diff --git "a/\\056env" "b/\\056env"'
    )
    expect(refusal(() => apply(reply)).patchError.kind).toBe('quoted-path')
  })

  it('refuses a fence inside the diff with the regeneration instruction', () => {
    const hunks = CLEAN.split('\n@@ -14')
    const reply = `\`\`\`diff\n${hunks[0]}\n\`\`\`\n@@ -14${hunks[1]}\n`
    const error = refusal(() => apply(reply))
    expect(error.patchError.kind).toBe('contaminated-diff')
    expect(error.message).toMatch(/Regenerate the diff/)
    expect(error.message).toMatch(/no markdown fences/)
  })

  it('refuses <tool_call> contamination inside the diff with the regeneration instruction', () => {
    const reply = CLEAN.replace('\n@@ -14', '\n</tool_call>\n<tool_call>\n@@ -14')
    const error = refusal(() => apply(reply))
    expect(error.patchError).toMatchObject({ kind: 'contaminated-diff', line: 13 })
    expect(error.message).toContain('<tool_call>')
    expect(error.message).toContain('Regenerate the diff')
  })

  it('refuses a reply that is prose only, telling the model what to send', () => {
    const error = refusal(() => apply('The loop already retries enough; no change is needed.'))
    expect(error.patchError.kind).toBe('no-diff')
    expect(error.message).toContain('Reply with the raw unified diff only')
  })

  it('refuses a reply that deletes a file the plan modifies', () => {
    const reply = `--- a/src/load.ts\n+++ /dev/null\n@@ -1,22 +0,0 @@\n${FILE.split('\n')
      .slice(0, -1)
      .map((l) => `-${l}`)
      .join('\n')}\n`
    expect(refusal(() => apply(reply)).patchError.kind).toBe('delete-refused')
  })
})

function reorder(diff: string): string {
  const [head, first, second] = diff.split(/\n(?=@@)/)
  return [head, second, first].join('\n')
}

/** Drops the first and last context line of every hunk. */
function dropEdges(diff: string): string {
  return diff
    .split(/\n(?=@@)/)
    .map((part, i) => {
      if (i === 0) return part
      const lines = part.replace(/\n $/, '').split('\n')
      return [lines[0], ...lines.slice(2, -1)].join('\n')
    })
    .join('\n')
}
