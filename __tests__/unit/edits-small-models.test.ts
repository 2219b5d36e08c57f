import { describe, expect, it } from 'vitest'
import { InvalidDiffError, type FileChange } from '../../src/contract/index.js'
import { thrown } from '../support/errors.js'
import { editFromReply, editsFromReply } from '../../src/edits/index.js'

/**
 * What small models' replies need to land (a reply cut off at the output limit, context written
 * from memory), each rule beside a reply it must still refuse.
 */

const text = (...lines: string[]) => lines.map((line) => `${line}\n`).join('')

const PY = text(
  'import os',
  '',
  '',
  'def load(path):',
  '    with open(path) as f:',
  '        data = f.read()',
  '    return data',
  '',
  '',
  'def size(path):',
  '    return os.path.getsize(path)'
)

const SIZE = 'def size_of(p):\n    return 0\n'
const change: FileChange = { path: 'store.py', operation: 'MODIFY' }
const apply = (reply: string, options: { cutOff?: boolean } = {}, content = PY) =>
  editFromReply('udiff', reply, change, content, options).edit.after
const rule = (act: () => unknown) => {
  const error = thrown(act)
  expect(error).toBeInstanceOf(InvalidDiffError)
  return String((error as InvalidDiffError).details.rule)
}
const head = (path: string) => `--- a/${path}\n+++ b/${path}\n`
const STRIP =
  '@@ -5,3 +5,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\n'
const STRIPPED = PY.replace('f.read()\n', 'f.read().strip()\n')

describe('a reply cut off after its last complete hunk', () => {
  const cutInSecond =
    '@@ -10,2 +10,4 @@\n def size(path):\n-    return os.path.getsize(path)\n+    if not os.path.exists(path):\n+        retu'

  it('lands the hunks it finished, without the one cut among its changes (unclosed fence)', () => {
    const reply = 'Here is the fix:\n\n```diff\n' + head('store.py') + STRIP + cutInSecond
    expect(apply(reply)).toBe(STRIPPED)
  })

  it('does the same for a bare diff the model said stopped at its output limit', () => {
    expect(apply(head('store.py') + STRIP + cutInSecond, { cutOff: true })).toBe(STRIPPED)
  })

  it("lands the files it finished when it was cut in the next file's headers", () => {
    const reply =
      '```diff\n' + head('store.py') + STRIP + 'diff --git a/size.py b/size.py\n' + head('size.py')
    const files = [
      { path: 'store.py', operation: 'MODIFY' as const, content: PY },
      { path: 'size.py', operation: 'MODIFY' as const, content: SIZE }
    ]
    const [store, size] = editsFromReply('udiff', reply, files)
    expect(store!.edit.after).toBe(STRIPPED)
    expect(size!.edit.after).toBe(SIZE)
    // Not cut (the fence is closed): headers with no hunk are refused.
    expect(rule(() => editsFromReply('udiff', reply + '```\n', files))).toBe('no-hunks')
  })

  it('still refuses a cut among the changes of the only hunk', () => {
    const reply = '```diff\n' + head('store.py') + cutInSecond
    expect(rule(() => apply(reply))).toBe('cut-off-reply')
  })

  it('still refuses when the hunks before the cut one change nothing', () => {
    const context = '@@ -5,2 +5,2 @@\n     with open(path) as f:\n         data = f.read()\n'
    const reply = '```diff\n' + head('store.py') + context + cutInSecond
    expect(rule(() => apply(reply))).toBe('cut-off-reply')
  })

  it("still refuses a file whose only hunk was cut, though another file's hunks are whole", () => {
    const files = [
      { path: 'store.py', operation: 'MODIFY' as const, content: PY },
      { path: 'size.py', operation: 'MODIFY' as const, content: SIZE }
    ]
    const reply =
      '```diff\n' +
      head('store.py') +
      STRIP +
      head('size.py') +
      '@@ -1,2 +1,2 @@\n def size_of(p):\n-    return 0\n+    return le'
    expect(rule(() => editsFromReply('udiff', reply, files))).toBe('cut-off-reply')
  })
})

describe('a context line written from memory', () => {
  const TAX = text(
    'def total(items, rate):',
    '    subtotal = sum(item.price for item in items)',
    '    tax = subtotal * rate',
    '    if tax > 100:',
    '        tax = 100',
    '    return subtotal + tax'
  )
  const taxFile = { path: 'tax.py', operation: 'MODIFY' as const }
  const applyTax = (reply: string, content = TAX) =>
    editFromReply('udiff', reply, taxFile, content).edit.after
  const hunk = (taxLine: string, ifLine = '     if tax > 100:') =>
    head('tax.py') +
    '@@ -2,5 +2,5 @@\n' +
    '-    subtotal = sum(item.price for item in items)\n' +
    '+    subtotal = sum(item.price * item.qty for item in items)\n' +
    `${taxLine}\n${ifLine}\n` +
    '-        tax = 100\n+        tax = 100.0\n' +
    '     return subtotal + tax\n'
  const FIXED = TAX.replace('item.price for', 'item.price * item.qty for').replace(
    '= 100\n',
    '= 100.0\n'
  )

  it("is placed when only its spacing differs, and the file's line is kept", () => {
    expect(applyTax(hunk('     tax=subtotal*rate'))).toBe(FIXED)
  })

  it('is placed when one word differs (a renamed identifier), landing as the reply wrote it', () => {
    expect(applyTax(hunk('     tax = subtotal * vat'))).toBe(
      FIXED.replace('subtotal * rate', 'subtotal * vat')
    )
  })

  it('is placed when one literal differs', () => {
    const after = applyTax(hunk('     tax = subtotal * rate', '     if tax > 2500:'))
    expect(after).toBe(FIXED.replace('tax > 100:', 'tax > 2500:'))
  })

  it('is refused where the hunk fits two places, whatever its line number says', () => {
    const twice = TAX + '\n\n' + TAX.replace('def total', 'def total_again')
    expect(rule(() => applyTax(hunk('     tax = subtotal * vat'), twice))).toMatch(
      /ambiguous-hunk|hunk-not-found/
    )
  })

  it('is refused when two lines differ', () => {
    const reply = hunk('     tax = subtotal * vat', '     if tax > 2500:')
    expect(rule(() => applyTax(reply))).toBe('hunk-not-found')
  })

  it("is refused when the reply's line is one the file has elsewhere", () => {
    expect(rule(() => applyTax(hunk('     return subtotal + tax')))).toBe('hunk-not-found')
  })
})

describe('context that repeats a line the hunk removes', () => {
  // Real reply (AceCoder-7B on pylint-dev__pylint-6196): `-import builtins`, `+import ast`, then
  // ` import builtins` as context over a file with one such line.
  const IMPORTS = text('"""Checkers."""', '', 'import builtins', 'import itertools', 'import re')
  const imports = { path: 'utils.py', operation: 'MODIFY' as const }
  const reply = (trailing: string) =>
    head('utils.py') +
    '@@ -1,5 +1,5 @@\n """Checkers."""\n \n-import builtins\n+import ast\n' +
    trailing
  const applyImports = (text: string) => editFromReply('udiff', text, imports, IMPORTS).edit.after

  it('lands when the context after the change was made up (other lines): it is dropped', () => {
    expect(applyImports(reply(' import functools\n import string\n'))).toBe(
      IMPORTS.replace('import builtins', 'import ast')
    )
  })

  it('is refused: the reply keeps the line it removes, replace or insert is a guess', () => {
    const kept = reply(' import builtins\n import itertools\n import re\n')
    expect(rule(() => applyImports(kept))).toBe('hunk-not-found')
  })
})
