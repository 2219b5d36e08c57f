import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { FileChange } from '../../src/contract/index.js'
import { editFromReply, renderDiff, type ReplyFormat } from '../../src/edits/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'

/**
 * Valid edits that must never be blocked, in every format: each reply is applied, its canonical
 * diff is checked and applied by `git apply` in a real repository, and the file must end up with
 * exactly the expected bytes.
 */

interface Case {
  name: string
  path: string
  before: string | null
  after: string
  replies: Partial<Record<ReplyFormat, string>>
}

const json = (path: string, edits: object[]) => JSON.stringify({ path, edits })
const sr = (path: string, search: string[], replace: string[]) =>
  [path, '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE'].join('\n')

const CASES: Case[] = [
  {
    name: 'deleting the last line',
    path: 'list.txt',
    before: 'a\nb\nc\n',
    after: 'a\nb\n',
    replies: {
      udiff: '--- a/list.txt\n+++ b/list.txt\n@@ -2,2 +2,1 @@\n b\n-c\n',
      'search-replace': sr('list.txt', ['b', 'c'], ['b']),
      'json-edits': json('list.txt', [{ range: { start: 3, end: 3 }, oldText: 'c', newText: '' }]),
      'whole-file': '^^^list.txt\na\nb\n^^^end'
    }
  },
  {
    name: 'a file without a final newline',
    path: 'n.txt',
    before: 'one\ntwo\nthree',
    after: 'one\nTWO\nthree',
    replies: {
      udiff:
        '--- a/n.txt\n+++ b/n.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\\ No newline at end of file\n',
      'search-replace': sr('n.txt', ['two'], ['TWO']),
      'json-edits': json('n.txt', [{ range: { start: 2, end: 2 }, newText: 'TWO' }]),
      'whole-file': '^^^n.txt\none\nTWO\nthree\n^^^end'
    }
  },
  {
    name: 'changing the last line of a file without a final newline',
    path: 'n.txt',
    before: 'one\ntwo',
    after: 'one\nTWO',
    replies: {
      udiff:
        '--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+TWO\n\\ No newline at end of file\n',
      'search-replace': sr('n.txt', ['two'], ['TWO']),
      'json-edits': json('n.txt', [{ range: { start: 2, end: 2 }, oldText: 'two', newText: 'TWO' }])
    }
  },
  {
    name: 'a CRLF file',
    path: 'win.txt',
    before: 'one\r\ntwo\r\nthree\r\n',
    after: 'one\r\nTWO\r\n2.5\r\nthree\r\n',
    replies: {
      udiff: '--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2.5\n three\n',
      'search-replace': sr('win.txt', ['two'], ['TWO', '2.5']),
      'json-edits': json('win.txt', [
        { range: { start: 2, end: 2 }, oldText: 'two\r\n', newText: 'TWO\n2.5\n' }
      ]),
      'whole-file': '^^^win.txt\r\none\r\nTWO\r\n2.5\r\nthree\r\n^^^end'
    }
  },
  {
    name: 'an empty new file',
    path: 'empty.txt',
    before: null,
    after: '',
    replies: {
      udiff: 'diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\n',
      'whole-file': '^^^empty.txt\n^^^end'
    }
  },
  {
    name: 'a new file',
    path: 'src/new.ts',
    before: null,
    after: 'export const a = 1\nexport const b = 2\n',
    replies: {
      udiff:
        '--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1,2 @@\n+export const a = 1\n+export const b = 2\n',
      'search-replace': sr('src/new.ts', [], ['export const a = 1', 'export const b = 2']),
      'json-edits': json('src/new.ts', [
        { range: { start: 1, end: 0 }, newText: 'export const a = 1\nexport const b = 2' }
      ]),
      'whole-file': '^^^src/new.ts\nexport const a = 1\nexport const b = 2\n^^^end'
    }
  },
  {
    name: 'a pure addition at the start of the file',
    path: 'top.txt',
    before: 'a\nb\nc\n',
    after: 'first\na\nb\nc\n',
    replies: {
      udiff: '--- a/top.txt\n+++ b/top.txt\n@@ -1,2 +1,3 @@\n+first\n a\n b\n',
      'search-replace': sr('top.txt', ['a'], ['first', 'a']),
      'json-edits': json('top.txt', [{ range: { start: 1, end: 0 }, newText: 'first' }]),
      'whole-file': '^^^top.txt\nfirst\na\nb\nc\n^^^end'
    }
  },
  {
    name: 'a pure addition at the end of the file',
    path: 'end.txt',
    before: 'a\nb\nc\n',
    after: 'a\nb\nc\nlast\n',
    replies: {
      udiff: '--- a/end.txt\n+++ b/end.txt\n@@ -2,2 +2,3 @@\n b\n c\n+last\n',
      'search-replace': sr('end.txt', ['c'], ['c', 'last']),
      'json-edits': json('end.txt', [{ range: { start: 4, end: 3 }, newText: 'last\n' }]),
      'whole-file': '^^^end.txt\na\nb\nc\nlast\n^^^end'
    }
  },
  {
    name: 'a hunk that adds a duplicate of an existing line',
    path: 'imports.ts',
    before: "import a from 'a'\nimport b from 'b'\n\ncode()\n",
    after: "import a from 'a'\nimport b from 'b'\nimport b from 'b'\n\ncode()\n",
    replies: {
      udiff:
        "--- a/imports.ts\n+++ b/imports.ts\n@@ -1,3 +1,4 @@\n import a from 'a'\n+import b from 'b'\n import b from 'b'\n \n",
      'search-replace': sr(
        'imports.ts',
        ["import a from 'a'"],
        ["import a from 'a'", "import b from 'b'"]
      ),
      'json-edits': json('imports.ts', [
        { range: { start: 2, end: 1 }, newText: "import b from 'b'" }
      ])
    }
  }
]

describe('edits that must not be blocked, checked by git apply', () => {
  const repos: TestRepo[] = []
  afterAll(() => {
    for (const repo of repos) repo.cleanup()
  })

  const rows = CASES.flatMap((c) =>
    Object.entries(c.replies).map(
      ([format, reply]) => [c.name, format as ReplyFormat, reply, c] as const
    )
  )

  it.each(rows)('%s (%s)', (_name, format, reply, c) => {
    const change: FileChange = { path: c.path, operation: c.before === null ? 'CREATE' : 'MODIFY' }
    const drafted = editFromReply(format, reply, change, c.before)
    expect(drafted.edit.after).toBe(c.after)
    const repo = createRepo({
      files: c.before === null ? { 'keep.txt': 'keep\n' } : { [c.path]: c.before },
      prefix: 'edits-roundtrip'
    })
    repos.push(repo)
    const patch = join(repo.root, 'edit.patch')
    writeFileSync(patch, renderDiff([drafted.edit]))
    repo.git('apply', '--check', patch)
    repo.git('apply', patch)
    expect(existsSync(join(repo.dir, c.path))).toBe(true)
    expect(repo.read(c.path)).toBe(c.after)
  })
})
