import { describe, expect, it } from 'vitest'
import { InvalidDiffError, type FileChange } from '../../src/contract/index.js'
import { thrown } from '../support/errors.js'
import { assertStillParses, editFromReply, editsFromReply } from '../../src/edits/index.js'

/**
 * What real model replies do that mutated history never did, one repair rule at a time; each
 * rule beside a reply it must still refuse. (Figures on whole replies: bench:patches.)
 */

const text = (...lines: string[]) => lines.map((line) => `${line}\n`).join('')

const PY = text(
  'import os',
  'import sys',
  '',
  '',
  'def load(path):',
  '    with open(path) as f:',
  '        data = f.read()',
  '    return data',
  '',
  '',
  'def save(path, data):',
  '    with open(path, "w") as f:',
  '        f.write(data)',
  '    return len(data)',
  '',
  '',
  'class Store:',
  '    def __init__(self, root):',
  '        self.root = root',
  '',
  '    def path(self, name):',
  '        return os.path.join(self.root, name)'
)

const change: FileChange = { path: 'store.py', operation: 'MODIFY' }
const apply = (reply: string, content = PY) =>
  editFromReply('udiff', reply, change, content).edit.after
const rule = (reply: string, content = PY) => {
  const error = thrown(() => apply(reply, content))
  expect(error).toBeInstanceOf(InvalidDiffError)
  return String((error as InvalidDiffError).details.rule)
}
const HEAD = '--- a/store.py\n+++ b/store.py\n'

describe('stop tokens', () => {
  it.each(['<|endoftext|>', '<|im_end|>', '<|eot_id|>', '</s>'])(
    'drops %s stuck to the last line',
    (token) => {
      const reply = `${HEAD}@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data${token}`
      expect(apply(reply)).toContain('        data = f.read().strip()\n    return data\n')
    }
  )

  it('refuses a chat token inside an added line, where the reply did not end', () => {
    const reply = `${HEAD}@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read()<|im_end|>\n     return data\n`
    expect(rule(reply)).toBe('contaminated-diff')
  })
})

describe('a reply cut off', () => {
  const cut = (tail: string) =>
    '```diff\n' +
    `${HEAD}@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n${tail}`

  it('drops a half-written last context line that starts a line of the file', () => {
    expect(apply(cut('     return da'))).toContain(
      '        data = f.read().strip()\n    return data\n'
    )
  })

  it('drops a half-written hunk header and an unfinished hunk of context only', () => {
    expect(apply(cut('     return data\n@@ -12'))).toContain('f.read().strip()')
    expect(
      apply(cut('     return data\n@@ -12,3 +12,3 @@\n     with open(path, "w") as f:'))
    ).toContain('f.read().strip()')
  })

  it('refuses a cut among the added lines: the rest of the change is unknown', () => {
    const reply =
      '```diff\n' +
      `${HEAD}@@ -6,3 +6,4 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read()\n+        if not da`
    expect(rule(reply)).toBe('cut-off-reply')
  })

  it('refuses a dropped context tail that is not in the file', () => {
    expect(rule(cut('     return somethi'))).toBe('hunk-not-found')
  })
})

describe('headers that disagree', () => {
  const body =
    '@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\n'

  it('lands a one-file reply on the planned file whatever its headers say', () => {
    for (const head of [
      '--- before.py\n+++ patched_before.py\n',
      '--- store.py\t2024-01-01 12:00:00.000000000 +0000\n+++ store.py\t2024-01-02 12:00:00.000000000 +0000\n',
      '--- a/store.py\n+++ b/store.py @@ -6,3 +6,3 @@\n'
    ]) {
      const reply = head.includes('+++ b/store.py @@')
        ? head + body.split('\n').slice(1).join('\n')
        : head + body
      expect(apply(reply)).toContain('f.read().strip()')
    }
  })

  it('refuses headers that disagree in a reply for several files', () => {
    const files = [
      { path: 'store.py', operation: 'MODIFY' as const, content: PY },
      { path: 'other.py', operation: 'MODIFY' as const, content: 'x = 1\n' }
    ]
    const reply = `--- a/store.py\n+++ b/patched_store.py\n${body}`
    expect(() => editsFromReply('udiff', reply, files)).toThrow(/disagree/)
  })
})

describe('a line without a prefix inside a hunk', () => {
  it('refuses the hunk instead of dropping the lines after it', () => {
    const sql = text('select 1;', 'select 2;', '-- old comment', 'select 3;')
    const reply =
      '--- a/q.sql\n+++ b/q.sql\n@@ -1,4 +1,4 @@\n select 1;\nselect 2;\n--- old comment\n+-- new comment\n select 3;\n@@ -9,2 +9,2 @@\n select 9;\n-select 10;\n+select 10; -- ten\n'
    const error = thrown(() =>
      editFromReply('udiff', reply, { path: 'q.sql', operation: 'MODIFY' }, sql)
    ) as InvalidDiffError
    expect(error.details).toMatchObject({ rule: 'contaminated-diff', line: 5 })
  })

  it('takes prose with a list of points after the last hunk as prose', () => {
    const reply = `${HEAD}@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\nThis change:\n- strips the data\n- keeps the rest\n`
    expect(apply(reply)).toContain('        data = f.read().strip()\n    return data\n')
  })

  it('still reads a removed line that starts with "--" when the hunk is whole', () => {
    const sql = text('select 1;', 'select 2;', '-- old comment', 'select 3;')
    const reply =
      '--- a/q.sql\n+++ b/q.sql\n@@ -1,4 +1,4 @@\n select 1;\n select 2;\n--- old comment\n+-- new comment\n select 3;\n'
    expect(
      editFromReply('udiff', reply, { path: 'q.sql', operation: 'MODIFY' }, sql).edit.after
    ).toBe(text('select 1;', 'select 2;', '-- new comment', 'select 3;'))
  })
})

describe('two sections for the same file', () => {
  it('places the hunks of both, the second one ending the reply', () => {
    const reply = `${HEAD}@@ -1,2 +1,2 @@\n-import os\n+import os.path\n import sys\n${HEAD}@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\n`
    const after = apply(reply)
    expect(after).toContain('import os.path\n')
    expect(after).toContain('f.read().strip()')
  })
})

describe('a change that is already there', () => {
  it('skips a hunk whose new side is in the file and whose old side is not, never reversing it', () => {
    const reply = `${HEAD}@@ -1,2 +1,3 @@\n import os\n+import sys\n \n@@ -6,3 +7,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\n`
    const after = apply(reply)!
    expect(after.match(/import sys/g)).toHaveLength(1)
    expect(after).toContain('f.read().strip()')
  })

  it('names a hunk after a skipped one by its number in the reply', () => {
    const reply = `${HEAD}@@ -1,2 +1,2 @@\n import os\n+import sys\n \n@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.readall()\n+        data = f.read().strip()\n     return data\n`
    const error = thrown(() => apply(reply)) as InvalidDiffError
    expect(error.details).toMatchObject({ rule: 'removed-line-missing', hunk: 2 })
    expect(error.message).toContain('Hunk 2')
  })

  // Lines removed whose block ends like the lines before it: the context meets there.
  const BLOCKS = text(
    'def a():',
    '    return 1',
    '',
    '',
    'def b():',
    '    return 1',
    '',
    '',
    'def c():',
    '    pass'
  )
  const deletion = (removed: string) =>
    `${HEAD}@@ -2,8 +2,4 @@\n     return 1\n \n \n-def b():\n-${removed}\n-\n-\n def c():\n@@ -9,2 +5,2 @@\n def c():\n-    pass\n+    return 3\n`

  it('lands a deletion whose new side also meets elsewhere in the file', () => {
    expect(apply(deletion('    return 1'), BLOCKS)).toBe(
      text('def a():', '    return 1', '', '', 'def c():', '    return 3')
    )
  })

  it('does not take a deletion for made: its new side is context alone', () => {
    // The reply removes a line the file does not hold; only the other hunk used to land.
    expect(rule(deletion('    return 2'), BLOCKS)).toBe('removed-line-missing')
  })

  // A line indented wrong; the change that fixes it is whitespace alone.
  const MISINDENTED = text('def run():', '  if failed:', '      exit(1)', '  return 0')
  const reindent = (removed: string) =>
    `${HEAD}@@ -1,2 +1,2 @@\n-def run():\n+def run(self):\n   if failed:\n@@ -2,3 +2,3 @@\n   if failed:\n-${removed}\n+    exit(1)\n   return 0\n`

  it('lands a change of whitespace alone', () => {
    expect(apply(reindent('      exit(1)'), MISINDENTED)).toBe(
      text('def run(self):', '  if failed:', '    exit(1)', '  return 0')
    )
  })

  it('does not take a line the file holds with other whitespace for a change made', () => {
    // Its removed line is not in the file, and its added line is there only loosely.
    expect(rule(reindent('      raise SystemExit'), MISINDENTED)).toBe('removed-line-missing')
  })

  it('still refuses when the new side is there twice', () => {
    const twice = PY + text('', 'def load(path):', '    with open(path) as f:')
    const reply = `${HEAD}@@ -5,2 +5,2 @@\n-def loaded(path):\n+def load(path):\n     with open(path) as f:\n`
    expect(rule(reply, twice)).toBe('removed-line-missing')
  })
})

describe('blank lines that come and go', () => {
  it('stretches runs of blank lines while every other line matches once', () => {
    // The reply has one blank line between the functions; the file has two.
    const reply = `${HEAD}@@ -8,5 +8,6 @@\n     return data\n \n+# saving\n def save(path, data):\n     with open(path, "w") as f:\n`
    expect(apply(reply)).toContain('    return data\n\n# saving\n\ndef save(path, data):\n')
  })

  it('refuses when the lines around the blank run match more than one place', () => {
    const twice = text('alpha = 1', '', '', 'beta = 2', '', 'alpha = 1', '', '', 'beta = 2')
    const reply = `${HEAD}@@ -1,3 +1,4 @@\n alpha = 1\n \n+gamma = 3\n beta = 2\n`
    expect(rule(reply, twice)).toBe('hunk-not-found')
  })

  it('does not stretch blank lines the hunk removes', () => {
    const reply = `${HEAD}@@ -8,4 +8,3 @@\n     return data\n-\n def save(path, data):\n`
    expect(rule(reply)).toBe('hunk-not-found')
  })
})

describe('a hunk shifted by one indentation', () => {
  it('shifts the added lines with the rest of the hunk', () => {
    // Copied four spaces too far left, as models do with methods.
    const reply = `${HEAD}@@ -18,5 +18,5 @@\n def __init__(self, root):\n-    self.root = root\n+    self.root = os.path.abspath(root)\n \n def path(self, name):\n`
    expect(apply(reply)).toContain('        self.root = os.path.abspath(root)\n')
  })

  it('keeps the added lines verbatim when the old lines are not shifted alike', () => {
    const reply = `${HEAD}@@ -18,5 +18,5 @@\n def __init__(self, root):\n-        self.root = root\n+        self.root = os.path.abspath(root)\n \n     def path(self, name):\n`
    expect(apply(reply)).toContain('        self.root = os.path.abspath(root)\n')
  })
})

describe('tabs written as spaces', () => {
  const MAKEFILE = text('build:', '\tgo build ./...', '', 'test:', '\tgo test ./...')
  const make = (reply: string) =>
    editFromReply('udiff', reply, { path: 'Makefile', operation: 'MODIFY' }, MAKEFILE).edit.after

  it('turns the added lines back into tabs, as make wants them', () => {
    const reply =
      '--- a/Makefile\n+++ b/Makefile\n@@ -4,2 +4,3 @@\n test:\n-    go test ./...\n+    go vet ./...\n+    go test -race ./...\n'
    expect(make(reply)).toBe(
      text('build:', '\tgo build ./...', '', 'test:', '\tgo vet ./...', '\tgo test -race ./...')
    )
  })

  it('keeps the added lines as written when their spaces are no whole number of tabs', () => {
    const reply =
      '--- a/Makefile\n+++ b/Makefile\n@@ -4,2 +4,2 @@\n test:\n-    go test ./...\n+      go test -race ./...\n'
    expect(make(reply)).toContain('\n      go test -race ./...\n')
  })
})

describe('leading context copied from elsewhere', () => {
  it('places the hunk by its removed lines and trailing context when they match once', () => {
    const reply = `${HEAD}@@ -11,4 +11,4 @@\n def store(path, data):\n     with open(path, "w") as f:\n-        f.write(data)\n+        f.write(data.encode())\n     return len(data)\n`
    expect(apply(reply)).toContain('        f.write(data.encode())\n    return len(data)\n')
  })

  it('refuses when the removed lines and trailing context match more than once', () => {
    const twice =
      PY +
      text(
        '',
        'def again(path, data):',
        '    with open(path, "w") as f:',
        '        f.write(data)',
        '    return len(data)'
      )
    const reply = `${HEAD}@@ -11,4 +11,4 @@\n def store(path, data):\n     with open(path, "w") as f:\n-        f.write(data)\n+        f.write(data.encode())\n     return len(data)\n`
    expect(['hunk-not-found', 'ambiguous-hunk']).toContain(rule(reply, twice))
  })
})

describe('trailing context made up', () => {
  const hunk = (trailing: string, header = '@@ -5,4 +5,4 @@') =>
    `${HEAD}${header}\n def load(path):\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n${trailing}`

  it('places the hunk by its leading context and removed lines when they match once', () => {
    const after = apply(hunk('     return data.upper()\n'))
    expect(after).toContain('        data = f.read().strip()\n    return data\n')
    expect(after).not.toContain('upper')
  })

  it('refuses when the leading context and removed lines match more than once', () => {
    const twice =
      PY + text('', 'def load(path):', '    with open(path) as f:', '        data = f.read()')
    expect(['hunk-not-found', 'ambiguous-hunk']).toContain(
      rule(hunk('     return data.upper()\n'), twice)
    )
  })

  it('refuses when a line is added after the context that does not fit: its place came from it', () => {
    expect(rule(hunk('     return data.upper()\n+    # read\n'))).toBe('hunk-not-found')
  })

  it('leaves a copy slip in the context to the locator, which wants line numbers for it', () => {
    const slip = (header: string) =>
      `${HEAD}${header}\n def save(path, data):\n     with open(path, "w") as f:\n-        f.write(data)\n+        f.write(data.encode())\n     return len(dat)\n`
    expect(apply(slip('@@ -11,4 +11,4 @@'))).toContain(
      'f.write(data.encode())\n    return len(data)\n'
    )
    expect(rule(slip('@@'))).toBe('too-much-damage')
  })
})

describe('hunks with nothing to change', () => {
  it('drops a hunk of context only when its lines are in the file', () => {
    const reply = `${HEAD}@@ -1,2 +1,2 @@\n import os\n import sys\n@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\n`
    expect(apply(reply)).toContain('f.read().strip()')
  })

  it('refuses a hunk of context only that is not in the file', () => {
    const reply = `${HEAD}@@ -1,2 +1,2 @@\n import json\n import sys\n@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+        data = f.read().strip()\n     return data\n`
    expect(rule(reply)).toBe('empty-hunk')
  })
})

describe('what the wrapping of a reply leaves in added lines (seed 004)', () => {
  const adding = (line: string, path = 'store.py') =>
    editFromReply(
      'udiff',
      `--- a/${path}\n+++ b/${path}\n@@ -1,2 +1,3 @@\n import os\n+${line}\n import sys\n`,
      { ...change, path },
      PY
    )

  it.each([
    '<tool_call>',
    '</tool_call>',
    '{"name": "x"}</function_call>',
    '<|im_start|>assistant'
  ])('refuses %s in an added line', (line) => expect(() => adding(line)).toThrow(/tool-call tags/))

  it('refuses a fence added to code, and takes one added to markdown', () => {
    expect(() => adding('```python')).toThrow(/markdown fence/)
    expect(adding('```python', 'README.md').edit.after).toContain('```python')
  })

  it.each([
    '# ... existing code ...',
    '    // ... rest of the function unchanged',
    '/* existing code */',
    '# rest of the file'
  ])('refuses the placeholder comment %s', (line) =>
    expect(() => adding(line)).toThrow(/placeholder/)
  )

  it('takes comments that only mention such words', () => {
    expect(adding('# Existing users keep their settings').edit.after).toContain('Existing users')
    expect(adding('x = data[...]').edit.after).toContain('data[...]')
  })

  it('refuses a whole-file reply that drops most of a file the plan keeps', () => {
    const long = text(...Array.from({ length: 30 }, (_, i) => `line_${i} = ${i}`))
    const reply = `^^^store.py\n${long.split('\n').slice(0, 5).join('\n')}\n^^^end`
    expect(() => editFromReply('whole-file', reply, change, long)).toThrow(/cut off/)
    const rewrite = `^^^store.py\n${long.replace('line_3 = 3', 'line_3 = 33')}^^^end`
    expect(editFromReply('whole-file', rewrite, change, long).edit.after).toContain('line_3 = 33')
  })
})

describe('the syntax gate on a drafted edit', () => {
  const draft = (reply: string, content = PY) => editFromReply('udiff', reply, change, content)
  const unindented = `${HEAD}@@ -6,3 +6,3 @@\n     with open(path) as f:\n-        data = f.read()\n+data = f.read()\n     return data\n`

  it('refuses an edit that leaves Python unparseable, naming the line', async () => {
    const refused = await assertStillParses([draft(unindented)]).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(InvalidDiffError)
    const details = (refused as InvalidDiffError).details
    expect(details.rule).toBe('syntax-error')
    expect(details.syntax_line).toBe(7)
    expect((refused as Error).message).toMatch(/unparseable \(python\).*line 7/)
  })

  it('passes a clean edit, and does not hold a file that was already broken against the edit', async () => {
    await expect(
      assertStillParses([draft(unindented.replace('+data', '+        data'))])
    ).resolves.toBeUndefined()
    const broken = PY.replace('def save(path, data):', 'def save(path, data)')
    await expect(assertStillParses([draft(unindented, broken)])).resolves.toBeUndefined()
  })
})
