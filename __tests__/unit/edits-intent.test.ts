import { describe, expect, it } from 'vitest'
import { InvalidDiffError, type FileChange } from '../../src/contract/index.js'
import { thrown } from '../support/errors.js'
import { editFromReply } from '../../src/edits/index.js'

/**
 * The model's whole intent, or nothing: a line the reply gives as unchanged but writes its own
 * way lands as the reply wrote it, or the hunk is refused; never the file's line in its place.
 * Each rule beside a reply it must still refuse (or a slip it must still forgive).
 */

const text = (...lines: string[]) => lines.map((line) => `${line}\n`).join('')

const PY = text(
  'from django.core.exceptions import ValidationError',
  '',
  '',
  'class CharField:',
  '    def validate(self, value):',
  '        if len(value) > self.max_length:',
  '            raise ValidationError(',
  "                self.error_messages['max_length'],",
  "                code='max_length',",
  '            )',
  '        return value'
)

const C = text(
  '#include <stddef.h>',
  '',
  'size_t count_words(const char **input)',
  '{',
  '    size_t n = 0;',
  '    while (**input) {',
  "        if (**input == ' ')",
  '            n++;',
  '        (*input)++;',
  '    }',
  '    return n;',
  '}'
)

const apply = (path: string, reply: string, content: string) => {
  const change: FileChange = { path, operation: 'MODIFY' }
  return editFromReply('udiff', reply, change, content).edit.after
}
const refusal = (path: string, reply: string, content: string) => {
  const error = thrown(() => apply(path, reply, content))
  expect(error).toBeInstanceOf(InvalidDiffError)
  return error as InvalidDiffError
}
const head = (path: string) => `--- a/${path}\n+++ b/${path}\n`

describe('a changed line given as unchanged (a near match)', () => {
  // The fix sits in a context line; the lines marked as changed only move a trailing space.
  const fixInContext = (condition: string) =>
    `${head('fields.py')}@@ -5,5 +5,5 @@\n     def validate(self, value):\n${condition}\n             raise ValidationError(\n-                self.error_messages['max_length'],\n+                self.error_messages['max_length'], \n                 code='max_length',\n`

  it("lands the reply's version of the line, not the file's", () => {
    const after = apply('fields.py', fixInContext('         if len(value) >= self.max_length:'), PY)
    expect(after).toContain('        if len(value) >= self.max_length:\n')
    expect(after).not.toContain('        if len(value) > self.max_length:\n')
  })

  it('forgives a copy slip: a word misspelt into one neither the file nor the reply uses', () => {
    const after = apply('fields.py', fixInContext('         if len(value) > self.max_lenght:'), PY)
    expect(after).toContain('        if len(value) > self.max_length:\n')
    expect(after).toContain("                self.error_messages['max_length'], \n")
  })

  it('refuses such a line in a hunk that only its line number placed, naming the line', () => {
    const twice = PY + PY.split('\n').slice(3).join('\n')
    const error = refusal(
      'fields.py',
      fixInContext('         if len(value) >= self.max_length:'),
      twice
    )
    expect(error.details.rule).toBe('ambiguous-hunk')
    expect(error.message).toContain('if len(value) >= self.max_length:')
    expect(error.message).toContain('gives line 6 as unchanged')
  })
})

describe('a context line beyond the change that the reply wrote its own way', () => {
  it("lands the reply's version (`input_ptr` for `input`) with the change", () => {
    const reply = `${head('words.c')}@@ -6,4 +6,4 @@\n     while (**input_ptr) {\n-        if (**input == ' ')\n+        if (**input == ' ' || **input == '\\t')\n             n++;\n         (*input)++;\n`
    const after = apply('words.c', reply, C)
    expect(after).toContain(
      "    while (**input_ptr) {\n        if (**input == ' ' || **input == '\\t')\n"
    )
    expect(after).not.toContain('    while (**input) {\n')
  })

  it('still drops context the file has elsewhere (copied from another place)', () => {
    const reply = `${head('words.c')}@@ -6,4 +6,4 @@\n     size_t n = 0;\n-        if (**input == ' ')\n+        if (**input == ' ' || **input == '\\t')\n             n++;\n         (*input)++;\n`
    const after = apply('words.c', reply, C)
    expect(after).toContain(
      "    while (**input) {\n        if (**input == ' ' || **input == '\\t')\n"
    )
  })

  it("refuses when beside the reply's version stands a line of other code: no place for either", () => {
    const reply = `${head('words.c')}@@ -5,5 +5,5 @@\n     int total = count(list);\n     while (**input_ptr) {\n-        if (**input == ' ')\n+        if (**input == ' ' || **input == '\\t')\n             n++;\n         (*input)++;\n`
    expect(refusal('words.c', reply, C).details.rule).toBe('hunk-not-found')
  })
})

describe('a context line between two changes that the reply wrote its own way', () => {
  const between = (middle: string) =>
    `${head('words.c')}@@ -5,4 +5,4 @@\n-    size_t n = 0;\n+    size_t n = 0, tabs = 0;\n${middle}\n-        if (**input == ' ')\n+        if (**input == ' ' || **input == '\\t')\n             n++;\n`

  it("is refused naming the reply's line and the file's, with their line numbers", () => {
    const error = refusal('words.c', between('     while (**input_ptr) {'), C)
    expect(error.details.rule).toBe('hunk-not-found')
    expect(error.details.line).toBe(6)
    expect(error.details.expected).toEqual(['    while (**input_ptr) {'])
    expect(error.message).toContain(
      "reply (line 2 of the hunk's old side, line 6 by its @@ header): while (**input_ptr) {"
    )
    expect(error.message).toContain('file  (line 6): while (**input) {')
    expect(error.message).toContain('mark it with "-"')
  })

  it("still applies when the line differs by a copy slip only, with the file's line kept", () => {
    const after = apply('words.c', between('     while (**inpt) {'), C)
    expect(after).toContain(
      "    size_t n = 0, tabs = 0;\n    while (**input) {\n        if (**input == ' ' || **input == '\\t')\n"
    )
  })

  it('names nothing when the rest of the hunk fits no single place', () => {
    const error = refusal(
      'words.c',
      between('     for (;;) {').replace('             n++;', '             m++;'),
      C
    )
    expect(error.details.rule).toBe('hunk-not-found')
    expect(error.message).not.toContain('reply (line')
  })
})

describe('a short context line one character off', () => {
  // `    return n;` is too short for a copy slip to be told from a change by its length.
  const after = (last: string) =>
    `${head('words.c')}@@ -7,5 +7,5 @@\n         if (**input == ' ')\n-            n++;\n+            n += 1;\n         (*input)++;\n     }\n${last}\n`

  it("lands the reply's version when the character makes a meaning (a number)", () => {
    expect(apply('words.c', after('     return 0;'), C)).toContain('    }\n    return 0;\n}\n')
  })

  it('is refused when it makes only a word nothing else uses: a slip or a change alike', () => {
    for (const last of ['     retarn n;', '     return m;']) {
      const error = refusal('words.c', after(last), C)
      expect(error.details.rule, last).toBe('hunk-not-found')
      expect(error.message, last).toContain('too short to tell a copy slip from a change')
      expect(error.message, last).toContain(`reply: ${last.slice(1)}`)
    }
  })
})

describe("an added line identical to the file's line in its place", () => {
  const marked = (line: string) =>
    `${head('fields.py')}@@ -5,3 +5,5 @@\n     def validate(self, value):\n+        value = value.strip()\n+${line}\n             raise ValidationError(\n`

  it('is that line, unchanged: it is not added a second time', () => {
    const after = apply('fields.py', marked('        if len(value) > self.max_length:'), PY)
    expect(after).toBe(
      PY.replace('        if len(value)', '        value = value.strip()\n        if len(value)')
    )
  })

  it('is not when it stands at another indentation: the hunk is still refused', () => {
    const error = refusal('fields.py', marked('            if len(value) > self.max_length:'), PY)
    expect(error.details.rule).toBe('hunk-not-found')
  })
})

describe('a reply that gives a diff for one file more than once', () => {
  const diff = (condition: string) =>
    '```diff\n' +
    `${head('fields.py')}@@ -5,3 +5,3 @@\n     def validate(self, value):\n-        if len(value) > self.max_length:\n+${condition}\n             raise ValidationError(\n` +
    '```\n'
  const first = diff('        if len(value) >= self.max_length:')
  const second = diff('        if self.max_length is not None and len(value) > self.max_length:')

  it('counts two identical diff blocks once', () => {
    const reply = `Here is the fix:\n\n${first}\nThe full patch again, to apply:\n\n${first}`
    expect(apply('fields.py', reply, PY)).toBe(PY.replace('len(value) >', 'len(value) >='))
  })

  it('uses the last diff when the reply says it replaces the first', () => {
    const reply = `${first}\nSorry, the previous diff was wrong. Here is the corrected one:\n\n${second}`
    expect(apply('fields.py', reply, PY)).toBe(
      PY.replace('if len(value)', 'if self.max_length is not None and len(value)')
    )
  })

  it('refuses two different diffs of the same lines when the reply does not say which stands', () => {
    const reply = `${first}\nAnother way to write it:\n\n${second}`
    const error = refusal('fields.py', reply, PY)
    expect(error.details.rule).toBe('overlapping-hunks')
    expect(error.message).toContain('does not say which one stands')
  })

  it('applies both diffs of different lines when the prose between them only tells what the next one replaces', () => {
    const more =
      '```diff\n' +
      `${head('fields.py')}@@ -10,2 +10,2 @@\n             )\n-        return value\n+        return value.strip()\n` +
      '```\n'
    // "replace" as an instruction, or a corrected condition, is no word about the earlier diff.
    for (const prose of [
      'Then replace the returned value with its stripped form:',
      'That corrects the bound. We also need to replace the return:',
      'Oops, one more thing: return the stripped value.'
    ]) {
      const after = apply('fields.py', `${first}\n${prose}\n\n${more}`, PY)
      expect(after, prose).toContain('len(value) >= self')
      expect(after, prose).toContain('return value.strip()')
    }
  })

  it('still applies a change split over two diffs of different lines', () => {
    const more =
      '```diff\n' +
      `${head('fields.py')}@@ -10,2 +10,2 @@\n             )\n-        return value\n+        return value.strip()\n` +
      '```\n'
    const after = apply('fields.py', `${first}\nAnd also:\n\n${more}`, PY)
    expect(after).toContain('len(value) >= self')
    expect(after).toContain('return value.strip()')
  })
})
