import { describe, expect, it } from 'vitest'
import { InvalidDiffError, type FileChange } from '../../src/contract/index.js'
import { thrown } from '../support/errors.js'
import { editFromReply } from '../../src/edits/index.js'

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
