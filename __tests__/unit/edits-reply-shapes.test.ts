import { describe, expect, it } from 'vitest'
import { InvalidDiffError, type FileChange } from '../../src/contract/index.js'
import { thrown } from '../support/errors.js'
import { editFromReply, editsFromReply } from '../../src/edits/index.js'

/**
 * How a real reply wraps its diff (fences, several versions of one diff): each rule beside a
 * reply it must still refuse.
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

const MD = text('# Usage', '', '```', 'pip install store', '```', '', 'Then run it.')

const apply = (path: string, reply: string, content: string) =>
  editFromReply('udiff', reply, { path, operation: 'MODIFY' } satisfies FileChange, content).edit
    .after
const refusal = (path: string, reply: string, content: string) => {
  const error = thrown(() => apply(path, reply, content))
  expect(error).toBeInstanceOf(InvalidDiffError)
  return error as InvalidDiffError
}
const head = (path: string) => `--- a/${path}\n+++ b/${path}\n`
const STRIPPED = PY.replace('f.read()\n', 'f.read().strip()\n')

describe('a closing fence indented by up to three spaces', () => {
  const reply = (closing: string) =>
    "Here's the fix: the data is stripped before it is returned.\n\n" +
    '```diff\n' +
    `${head('store.py')}@@ -5,3 +5,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\n` +
    `${closing}\n\nThis removes the trailing newline that \`read\` keeps.\n`

  it.each([' ```', '  ```', '   ```', ' ````', '   ```  '])('ends the diff (%j)', (closing) => {
    expect(apply('store.py', reply(closing), PY)).toBe(STRIPPED)
  })

  it('is not a closing fence when indented by four spaces: a context line the file lacks, refused', () => {
    expect(refusal('store.py', reply('    ```'), PY).details.rule).toBe('hunk-not-found')
  })

  it('is not one when it is shorter than the opening fence or of the other kind', () => {
    const opened = (closing: string) => reply(closing).replace('```diff', '````diff')
    expect(refusal('store.py', opened(' ```'), PY).details.rule).toBe('hunk-not-found')
    expect(refusal('store.py', reply(' ~~~'), PY).details.rule).toBe('hunk-not-found')
  })

  it("is a context line, the file's fence, when the hunk goes on after it", () => {
    const readme =
      '```diff\n' +
      `${head('README.md')}@@ -3,5 +3,5 @@\n \`\`\`\n-pip install store\n+pip install store[fast]\n \`\`\`\n \n Then run it.\n` +
      '```\n'
    expect(apply('README.md', readme, MD)).toBe(MD.replace('store\n', 'store[fast]\n'))
  })

  it('is a context line when the closing fence follows it', () => {
    // Without its last line, the fence, the hunk would fit both installs: it would be refused.
    const twice = MD.replace('Then run it.', 'pip install store\npip install extra')
    const readme =
      '```diff\n' +
      `${head('README.md')}@@ @@\n-pip install store\n+pip install store[fast]\n \`\`\`\n` +
      '```\n'
    expect(apply('README.md', readme, twice)).toBe(twice.replace('store\n```', 'store[fast]\n```'))
  })
})

describe('a later diff block the reply presents as replacing an earlier one', () => {
  const block = (path: string, hunk: string) => '```diff\n' + head(path) + hunk + '```\n'
  const strip = block(
    'store.py',
    '@@ -5,3 +5,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\n'
  )
  const rstrip = block(
    'store.py',
    '@@ -5,3 +5,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().rstrip("\\n")\n     return data\n'
  )
  const RSTRIPPED = PY.replace('f.read()\n', 'f.read().rstrip("\\n")\n')
  const twice = (prose: string) =>
    `Here is the fix:\n\n${strip}\n${prose}\n\n${rstrip}\nThis keeps leading spaces.\n`

  it.each([
    "Wait, that also strips leading spaces. Here's the final patch:",
    'Actually, only the newline should go:',
    'Here is the final version, which keeps leading spaces:',
    'The corrected version:',
    'Updated diff:',
    'Revised:',
    'My earlier diff is wrong; this one replaces the previous one:'
  ])('replaces it over the same lines (%j)', (prose) => {
    expect(apply('store.py', twice(prose), PY)).toBe(RSTRIPPED)
  })

  it.each([
    'Alternatively, strip only the newline:',
    'Another way to write it:',
    'Then replace the call as well:',
    'Here is a simpler version:'
  ])('does not when the prose offers another diff, not a replacement (%j): refused', (prose) => {
    const error = refusal('store.py', twice(prose), PY)
    expect(error.details.rule).toBe('overlapping-hunks')
    expect(error.message).toContain('does not say which one stands')
  })

  it('replaces it in a reply with no fences, the prose between the two diffs', () => {
    const bare = (diff: string) => diff.replace('```diff\n', '').replace(/```\n$/, '')
    const reply = `${bare(strip)}\nActually, only the newline should go:\n\n${bare(rstrip)}`
    expect(apply('store.py', reply, PY)).toBe(RSTRIPPED)
    const other = `${bare(strip)}\nAnother way to write it:\n\n${bare(rstrip)}`
    expect(refusal('store.py', other, PY).details.rule).toBe('overlapping-hunks')
  })

  it('does not when the words stand before the first diff only: refused', () => {
    const reply = `Here's the final patch:\n\n${strip}\nAnd also:\n\n${rstrip}`
    expect(refusal('store.py', reply, PY).details.rule).toBe('overlapping-hunks')
  })

  const SIZE = text(
    'from store import load',
    '',
    '',
    'def size_of(path):',
    '    return len(load(path))'
  )
  const files = () => [
    { path: 'store.py', operation: 'MODIFY' as const, content: PY },
    { path: 'size.py', operation: 'MODIFY' as const, content: SIZE }
  ]
  const sizeBlock = (diff: string) => diff.replace('```diff\n', '').replace(/```\n$/, '')
  const both = (first: string) =>
    '```diff\n' +
    sizeBlock(first) +
    head('size.py') +
    '@@ -4,2 +4,2 @@\n def size_of(path):\n-    return len(load(path))\n+    return len(load(path).encode())\n' +
    '```\n'

  it('replaces a block of several files when the later block gives them all', () => {
    const reply = `${both(strip)}\nHere's the final patch:\n\n${both(rstrip)}`
    const [store, size] = editsFromReply('udiff', reply, files())
    expect(store!.edit.after).toBe(RSTRIPPED)
    expect(size!.edit.after).toContain('len(load(path).encode())')
  })

  it('does not when the later block gives only some of its files: refused', () => {
    const reply = `${both(strip)}\nHere's the corrected diff:\n\n${rstrip}`
    const error = thrown(() => editsFromReply('udiff', reply, files()))
    expect((error as InvalidDiffError).details.rule).toBe('overlapping-hunks')
  })
})
