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
