import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, it, expect } from 'vitest'
import { InvalidDiffError, type FileChange } from '../../src/contract/index.js'
import {
  applyHunks,
  editFromReply,
  editsFromReply,
  extractDiff,
  parseUnifiedDiff,
  renderDiff,
  type FileEdit,
  type HeaderAsk,
  type Hunk
} from '../../src/edits/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'

function diffError(action: () => unknown): InvalidDiffError {
  try {
    action()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidDiffError)
    expect((error as InvalidDiffError).code).toBe('INVALID_DIFF')
    return error as InvalidDiffError
  }
  throw new Error('expected INVALID_DIFF')
}

/** A hunk from diff-style lines: ' context', '-removed', '+added'. */
function hunk(oldStart: number, ...lines: string[]): Hunk {
  return {
    oldStart,
    lines: lines.map((line) => ({
      kind: line[0] as ' ' | '+' | '-',
      text: line.slice(1),
      noEol: false
    }))
  }
}

const lines = (...items: string[]) => items.map((item) => `${item}\n`).join('')

const DIFF = [
  '--- a/src/form.ts',
  '+++ b/src/form.ts',
  '@@ -1,3 +1,3 @@',
  ' export function check(email: string) {',
  '-  return true',
  '+  return email.length > 0',
  ' }'
].join('\n')

describe('extractDiff', () => {
  it('takes a diff out of a ```diff fence with prose before and after', () => {
    const reply = `Here is the fix for the form:\n\n\`\`\`diff\n${DIFF}\n\`\`\`\n\nThis makes empty emails fail the check.\n- it also keeps the API\n`
    expect(extractDiff(reply)).toBe(`${DIFF}\n`)
  })

  it('keeps a diff that has no fence and drops trailing prose', () => {
    expect(extractDiff(`${DIFF}\n\nThat is all.\n`)).toBe(`${DIFF}\n`)
  })

  it('accepts CRLF replies', () => {
    expect(extractDiff(`\`\`\`diff\r\n${DIFF.replace(/\n/g, '\r\n')}\r\n\`\`\`\r\n`)).toBe(
      `${DIFF}\n`
    )
  })

  it('refuses a reply with no diff as no-diff, telling the model what to send', () => {
    const error = diffError(() =>
      extractDiff('I looked at the file and the code already handles empty emails.')
    )
    expect(error.details.rule).toBe('no-diff')
    expect(error.message).toContain('unified diff')
    expect(error.message).toMatch(/--- a\/<path>/)
    expect(error.message).toMatch(/no markdown fences/)
    expect(error.recoverable).toBe(true)
  })

  it('refuses headers without any hunk or +/- line as no-diff', () => {
    expect(diffError(() => extractDiff('--- a/x\n')).details.rule).toBe('no-diff')
  })

  it('strips <tool_call> wrapper lines around the diff', () => {
    expect(extractDiff(`<tool_call>\n${DIFF}\n</tool_call>\n`)).toBe(`${DIFF}\n`)
    expect(extractDiff(`<edit path="src/form.ts">\n${DIFF}\n</edit>`)).toBe(`${DIFF}\n`)
  })

  const twoHunks = (between: string) =>
    [
      '--- a/x.txt',
      '+++ b/x.txt',
      '@@ -1,2 +1,2 @@',
      ' one',
      '-two',
      '+TWO',
      between,
      '@@ -8,2 +8,2 @@',
      ' eight',
      '-nine',
      '+NINE'
    ].join('\n')

  it.each(['</tool_call>', '<tool_call>', '<patch>'])(
    'refuses a tag line %j between hunks as contaminated-diff',
    (tag) => {
      const error = diffError(() => extractDiff(twoHunks(tag)))
      expect(error.details.rule).toBe('contaminated-diff')
      expect(error.details.line).toBe(7)
      expect(error.message).toContain('Reply with the raw unified diff')
    }
  )

  it.each(['```', '```diff', '~~~'])('refuses a fence line %j between hunks', (fence) => {
    const error = diffError(() => extractDiff(twoHunks(fence)))
    expect(error.details.rule).toBe('contaminated-diff')
  })

  it('refuses a fence between hunks of a fenced reply instead of dropping a hunk', () => {
    const reply = `Fix:\n\`\`\`diff\n${twoHunks('```')}\n\`\`\`\nDone.\n`
    expect(diffError(() => extractDiff(reply)).details.rule).toBe('contaminated-diff')
  })

  it('does not mistake a context line " ```bash" for a fence', () => {
    const diff = [
      '--- a/README.md',
      '+++ b/README.md',
      '@@ -3,4 +3,4 @@',
      ' ```bash',
      '-npm install patchsmit',
      '+npm install patchsmith',
      ' ```'
    ].join('\n')
    expect(extractDiff(`\`\`\`diff\n${diff}\n\`\`\`\n`)).toBe(`${diff}\n`)
    expect(extractDiff(diff)).toBe(`${diff}\n`)
  })
})

describe('parseUnifiedDiff', () => {
  it('parses a git-style diff', () => {
    const patches = parseUnifiedDiff(
      [
        'diff --git a/src/form.ts b/src/form.ts',
        'index 83db48f..bf269f4 100644',
        DIFF.replace('@@ -1,3 +1,3 @@', '@@ -10,3 +10,3 @@ export function'),
        ''
      ].join('\n')
    )
    expect(patches).toHaveLength(1)
    expect(patches[0]).toMatchObject({ oldPath: 'src/form.ts', newPath: 'src/form.ts' })
    expect(patches[0]!.hunks).toHaveLength(1)
    expect(patches[0]!.hunks[0]!.oldStart).toBe(10)
    expect(patches[0]!.hunks[0]!.lines.map((l) => l.kind + l.text)).toEqual([
      ' export function check(email: string) {',
      '-  return true',
      '+  return email.length > 0',
      ' }'
    ])
  })

  it('parses a plain diff without a/ b/ prefixes and with timestamps', () => {
    const [patch] = parseUnifiedDiff(
      '--- src/x.ts\t2024-01-01 00:00:00\n+++ src/x.ts\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n'
    )
    expect(patch).toMatchObject({ oldPath: 'src/x.ts', newPath: 'src/x.ts' })
  })

  it('parses several files, git-style', () => {
    const patches = parseUnifiedDiff(
      [
        'diff --git a/a.txt b/a.txt',
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1 +1 @@',
        '-a',
        '+A',
        'diff --git a/b.txt b/b.txt',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/b.txt',
        '@@ -0,0 +1 @@',
        '+b'
      ].join('\n')
    )
    expect(patches.map((p) => [p.oldPath, p.newPath])).toEqual([
      ['a.txt', 'a.txt'],
      [null, 'b.txt']
    ])
    expect(patches[1]!.hunks[0]!.lines).toEqual([{ kind: '+', text: 'b', noEol: false }])
  })

  it('parses several files in a plain diff without "diff --git" lines', () => {
    const patches = parseUnifiedDiff(
      [
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1 +1 @@',
        '-a',
        '+A',
        '--- a/b.txt',
        '+++ b/b.txt',
        '@@ -1 +1 @@',
        '-b',
        '+B',
        ''
      ].join('\n')
    )
    expect(patches.map((p) => p.newPath)).toEqual(['a.txt', 'b.txt'])
    expect(patches[0]!.hunks[0]!.lines.map((l) => l.kind + l.text)).toEqual(['-a', '+A'])
    expect(patches[1]!.hunks[0]!.lines.map((l) => l.kind + l.text)).toEqual(['-b', '+B'])
  })

  it('ignores the counts in hunk headers', () => {
    const [patch] = parseUnifiedDiff(
      '--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n one\n-two\n+TWO\n three\n four\n'
    )
    expect(patch!.hunks[0]!.lines.map((l) => l.kind + l.text)).toEqual([
      ' one',
      '-two',
      '+TWO',
      ' three',
      ' four'
    ])
  })

  it('reads blank context lines written without their leading space', () => {
    const [patch] = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n one\n\n-two\n+TWO\n\n')
    expect(patch!.hunks[0]!.lines.map((l) => l.kind + l.text)).toEqual([
      ' one',
      ' ',
      '-two',
      '+TWO'
    ])
  })

  it('marks "\\ No newline at end of file" on the line before it', () => {
    const [patch] = parseUnifiedDiff(
      '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+TWO\n\\ No newline at end of file\n'
    )
    expect(patch!.hunks[0]!.lines).toEqual([
      { kind: ' ', text: 'one', noEol: false },
      { kind: '-', text: 'two', noEol: true },
      { kind: '+', text: 'TWO', noEol: true }
    ])
  })

  it.each([
    ['old mode 100644', 'new mode 100755'],
    ['new mode 100755', ''],
    ['rename from a.txt', 'rename to b.txt'],
    ['copy from a.txt', 'copy to b.txt'],
    ['similarity index 90%', 'rename from a.txt'],
    ['GIT binary patch', 'literal 0'],
    ['new file mode 120000', ''],
    ['new file mode 160000', ''],
    ['deleted file mode 120000', '']
  ])('refuses the header %j', (header, next) => {
    const diff = [
      'diff --git a/a.txt b/a.txt',
      header,
      next,
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1 +1 @@',
      '-a',
      '+b'
    ]
      .filter((line) => line !== '')
      .join('\n')
    // Recorded for the path policy, which sees it first; applying the reply refuses it too.
    const headers = { sections: [], asks: [] as HeaderAsk[] }
    parseUnifiedDiff(diff, { headers })
    expect(headers.asks[0]?.line).toBe(2)
    const a = { path: 'a.txt', operation: 'MODIFY' as const, content: 'a\n' }
    const error = diffError(() => editsFromReply('udiff', diff, [a]))
    expect(['unsupported-header', 'unsupported-mode']).toContain(error.details.rule)
    expect(error.details.line).toBe(2)
  })

  it('accepts new files of mode 100644 and deleted files of a regular mode', () => {
    expect(
      parseUnifiedDiff(
        'diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+#!/bin/sh\n'
      )
    ).toHaveLength(1)
    expect(
      parseUnifiedDiff(
        'diff --git a/x b/x\ndeleted file mode 100755\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-#!/bin/sh\n'
      )
    ).toHaveLength(1)
  })

  it('refuses an executable new file (new file mode 100755)', () => {
    const x = { path: 'x', operation: 'CREATE' as const, content: null }
    const error = diffError(() =>
      editsFromReply(
        'udiff',
        'diff --git a/x b/x\nnew file mode 100755\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+#!/bin/sh\n',
        [x]
      )
    )
    expect(error.details.rule).toBe('unsupported-mode')
  })

  it('refuses a diff without hunks; a hunk without changes is judged against the file', () => {
    expect(diffError(() => parseUnifiedDiff('--- a/x\n+++ b/x\n')).details.rule).toBe('no-hunks')
    const patches = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n')
    // A reply that ends before any change was written: cut off.
    expect(patches[0]!.cutOff).toBe('in-hunk')
  })
})

describe('applyHunks', () => {
  const file = lines('alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta')

  it('places a hunk exactly', () => {
    const result = applyHunks('f.txt', file, [hunk(2, ' beta', '-gamma', '+GAMMA', ' delta')])
    expect(result.content).toBe(lines('alpha', 'beta', 'GAMMA', 'delta', 'epsilon', 'zeta'))
    expect(result.placements).toEqual(['exact'])
  })

  it('places a hunk whose line number is wrong', () => {
    const result = applyHunks('f.txt', file, [hunk(40, ' delta', '-epsilon', '+EPSILON')])
    expect(result.content).toBe(lines('alpha', 'beta', 'gamma', 'delta', 'EPSILON', 'zeta'))
    expect(result.placements).toEqual(['exact'])
  })

  it('places a hunk with whitespace drift, keeping the file own context lines', () => {
    const code = lines('function f() {', '    const a = 1', '    return a', '}')
    const result = applyHunks('f.ts', code, [
      hunk(1, ' function f()  {', '-  const a = 1', '+  const a = 2', '  return a')
    ])
    expect(result.placements).toEqual(['whitespace'])
    expect(result.content).toBe(lines('function f() {', '  const a = 2', '    return a', '}'))
  })

  const repeated = lines('start', 'x = 1', 'y = 2', 'middle', 'x = 1', 'y = 2', 'end')

  it('refuses a hunk that matches two places when the hint points at neither', () => {
    const error = diffError(() =>
      applyHunks('r.txt', repeated, [hunk(4, ' x = 1', '-y = 2', '+y = 3')])
    )
    expect(error.details.rule).toBe('ambiguous-hunk')
    expect(error.message).toContain('2, 5')
  })

  it.each([
    [2, lines('start', 'x = 1', 'y = 3', 'middle', 'x = 1', 'y = 2', 'end')],
    [5, lines('start', 'x = 1', 'y = 2', 'middle', 'x = 1', 'y = 3', 'end')]
  ])('settles an ambiguous hunk by its hint (line %i)', (oldStart, expected) => {
    const result = applyHunks('r.txt', repeated, [hunk(oldStart, ' x = 1', '-y = 2', '+y = 3')])
    expect(result.content).toBe(expected)
    expect(result.placements).toEqual(['hint'])
  })

  it('does not let the hint place a hunk whose only old lines are blank', () => {
    const blanks = lines('import a', '', 'const b = 1', '', 'const c = 2')
    const error = diffError(() => applyHunks('b.ts', blanks, [hunk(2, ' ', '+const x = 0')]))
    expect(error.details.rule).toBe('ambiguous-hunk')
  })

  it('refuses removed lines that do not exist as hunk-not-found', () => {
    const error = diffError(() =>
      applyHunks('f.txt', file, [hunk(3, ' gamma', '-omega', '+OMEGA')])
    )
    expect(error.details.rule).toBe('removed-line-missing')
    expect(error.details.expected).toEqual(['omega'])
    expect(error.message).toContain('omega')
  })

  it('refuses overlapping hunks', () => {
    const error = diffError(() =>
      applyHunks('f.txt', file, [
        hunk(2, ' beta', '-gamma', '+GAMMA', ' delta'),
        hunk(3, ' gamma', '-delta', '+DELTA')
      ])
    )
    expect(error.details.rule).toBe('overlapping-hunks')
  })

  it('applies several hunks given out of order', () => {
    const result = applyHunks('f.txt', file, [
      hunk(5, ' epsilon', '-zeta', '+ZETA', '+eta'),
      hunk(1, '-alpha', '+ALPHA', ' beta')
    ])
    expect(result.content).toBe(lines('ALPHA', 'beta', 'gamma', 'delta', 'epsilon', 'ZETA', 'eta'))
  })

  it('keeps CRLF line endings', () => {
    const crlf = 'one\r\ntwo\r\nthree\r\n'
    const result = applyHunks('w.txt', crlf, [hunk(1, ' one', '-two', '+TWO', '+two and a half')])
    expect(result.content).toBe('one\r\nTWO\r\ntwo and a half\r\nthree\r\n')
  })

  it('keeps a file without a final newline without one', () => {
    const result = applyHunks('n.txt', 'one\ntwo\nthree', [hunk(1, '-one', '+ONE', ' two')])
    expect(result.content).toBe('ONE\ntwo\nthree')
    const atEnd = applyHunks('n.txt', 'one\ntwo\nthree', [hunk(2, ' two', '-three', '+THREE')])
    expect(atEnd.content).toBe('one\ntwo\nTHREE')
  })

  it('follows "\\ No newline at end of file" on the new side', () => {
    const h = hunk(2, ' two', '-three', '+THREE')
    h.lines[2]!.noEol = true
    expect(applyHunks('n.txt', lines('one', 'two', 'three'), [h]).content).toBe('one\ntwo\nTHREE')
  })

  it('deletes the last line', () => {
    expect(applyHunks('f.txt', lines('a', 'b', 'c'), [hunk(2, ' b', '-c')]).content).toBe(
      lines('a', 'b')
    )
  })

  it('deletes every line', () => {
    expect(applyHunks('f.txt', lines('a', 'b'), [hunk(1, '-a', '-b')]).content).toBe('')
  })

  it('adds lines at the end of the file', () => {
    expect(applyHunks('f.txt', lines('a', 'b'), [hunk(1, ' a', ' b', '+c', '+d')]).content).toBe(
      lines('a', 'b', 'c', 'd')
    )
    // A file without a final newline keeps having none when the reply has no markers …
    expect(applyHunks('f.txt', 'a\nb', [hunk(2, ' b', '+c')]).content).toBe('a\nb\nc')
    // … and gets one when the reply says its old last line had none and the new one has.
    const marked = hunk(2, '-b', '+b', '+c')
    marked.lines[0]!.noEol = true
    expect(applyHunks('f.txt', 'a\nb', [marked]).content).toBe('a\nb\nc\n')
  })

  it('adds a duplicate of an existing line', () => {
    expect(
      applyHunks('f.txt', lines('import a', 'import b', 'code'), [
        hunk(1, ' import a', '+import b', ' import b', ' code')
      ]).content
    ).toBe(lines('import a', 'import b', 'import b', 'code'))
  })

  it('writes a new file from an empty one', () => {
    expect(applyHunks('new.txt', '', [hunk(0, '+x', '+y')]).content).toBe(lines('x', 'y'))
  })

  it('refuses lines added without any context to a non-empty file when no hint places them', () => {
    expect(diffError(() => applyHunks('f.txt', lines('a'), [hunk(0, '+x')])).details.rule).toBe(
      'no-context'
    )
  })
})

describe('renderDiff with git apply', () => {
  const repos: TestRepo[] = []
  afterAll(() => {
    for (const repo of repos) repo.cleanup()
  })

  /** Renders the edits, checks and applies them with git in a real repository, returns it. */
  function gitApply(files: Record<string, string>, edits: FileEdit[]): TestRepo {
    const repo = createRepo({ files, prefix: 'render' })
    repos.push(repo)
    const patch = join(repo.root, 'edit.patch')
    writeFileSync(patch, renderDiff(edits))
    repo.git('apply', '--check', patch)
    repo.git('apply', patch)
    for (const edit of edits) {
      if (edit.after === null) expect(existsSync(join(repo.dir, edit.path))).toBe(false)
      else expect(repo.read(edit.path)).toBe(edit.after)
    }
    return repo
  }

  it('modifies, creates and deletes files in one diff', () => {
    const before = lines(...Array.from({ length: 30 }, (_, i) => `line ${i + 1}`))
    const after = before
      .replace('line 3\n', 'line three\n')
      .replace('line 28\n', 'line 28\nextra\n')
    const repo = gitApply({ 'src/a.txt': before, 'old.txt': lines('gone', 'soon') }, [
      { path: 'src/a.txt', operation: 'MODIFY', before, after },
      { path: 'src/new/b.txt', operation: 'CREATE', before: null, after: lines('fresh') },
      { path: 'old.txt', operation: 'DELETE', before: lines('gone', 'soon'), after: null }
    ])
    expect(repo.git('status', '--porcelain')).toContain(' D old.txt')
  })

  it('creates an empty new file', () => {
    const repo = gitApply({ 'a.txt': 'a\n' }, [
      { path: 'empty.txt', operation: 'CREATE', before: null, after: '' }
    ])
    expect(existsSync(join(repo.dir, 'empty.txt'))).toBe(true)
  })

  it('handles files without a final newline', () => {
    gitApply({ 'n.txt': 'one\ntwo', 'm.txt': 'x\ny\n' }, [
      { path: 'n.txt', operation: 'MODIFY', before: 'one\ntwo', after: 'one\nTWO' },
      { path: 'm.txt', operation: 'MODIFY', before: 'x\ny\n', after: 'x\ny\nz' }
    ])
    gitApply({ 'n.txt': 'one\ntwo' }, [
      { path: 'n.txt', operation: 'MODIFY', before: 'one\ntwo', after: 'one\ntwo\nthree\n' }
    ])
  })

  it('handles a CRLF file', () => {
    const before = 'one\r\ntwo\r\nthree\r\n'
    gitApply({ 'w.txt': before }, [
      { path: 'w.txt', operation: 'MODIFY', before, after: 'one\r\nTWO\r\nthree\r\n' }
    ])
  })

  it('round-trips applyHunks output through git', () => {
    const before = lines('a', 'b', 'c', 'd')
    const { content } = applyHunks('f.txt', before, [hunk(2, ' b', '-c', '+C')])
    gitApply({ 'f.txt': before }, [{ path: 'f.txt', operation: 'MODIFY', before, after: content }])
  })
})

describe('editFromReply with a unified diff', () => {
  const editFromUdiffReply = (reply: string, change: FileChange, current: string | null) =>
    editFromReply('udiff', reply, change, current)

  const modify: FileChange = { path: 'src/form.ts', operation: 'MODIFY' }
  const current = lines('export function check(email: string) {', '  return true', '}')

  it('applies a reply with other header paths to the planned path and reports the claim', () => {
    const reply = DIFF.replaceAll('src/form.ts', 'lib/form.js')
    const drafted = editFromUdiffReply(reply, modify, current)
    expect(drafted.edit).toEqual({
      path: 'src/form.ts',
      operation: 'MODIFY',
      before: current,
      after: lines('export function check(email: string) {', '  return email.length > 0', '}')
    })
    expect(drafted.claimedPath).toBe('lib/form.js')
    expect(drafted.placements).toEqual(['exact'])
  })

  it('reports no claimed path when the headers name the planned path', () => {
    expect(editFromUdiffReply(`\`\`\`diff\n${DIFF}\n\`\`\``, modify, current).claimedPath).toBe(
      undefined
    )
  })

  it('refuses a reply that edits two files', () => {
    const reply = `${DIFF}\ndiff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n`
    const error = diffError(() =>
      editFromUdiffReply(`diff --git a/src/form.ts b/src/form.ts\n${reply}`, modify, current)
    )
    expect(error.details.rule).toBe('too-many-files')
  })

  it('refuses a plain two-file reply too', () => {
    const reply = `${DIFF}\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n`
    expect(diffError(() => editFromUdiffReply(reply, modify, current)).details.rule).toBe(
      'too-many-files'
    )
  })

  it('creates a file from /dev/null', () => {
    const reply =
      '--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1,2 @@\n+export const a = 1\n+export const b = 2\n'
    const drafted = editFromUdiffReply(reply, { path: 'src/new.ts', operation: 'CREATE' }, null)
    expect(drafted.edit).toEqual({
      path: 'src/new.ts',
      operation: 'CREATE',
      before: null,
      after: lines('export const a = 1', 'export const b = 2')
    })
    expect(drafted.claimedPath).toBeUndefined()
  })

  it('refuses a CREATE reply that edits lines of an existing file', () => {
    const error = diffError(() =>
      editFromUdiffReply(
        DIFF.replaceAll('src/form.ts', 'src/new.ts'),
        { path: 'src/new.ts', operation: 'CREATE' },
        null
      )
    )
    expect(error.details.rule).toBe('create-expected')
  })

  it('deletes a file when the reply goes to /dev/null', () => {
    const reply =
      '--- a/src/form.ts\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-export function check(email: string) {\n-  return true\n-}\n'
    const drafted = editFromUdiffReply(reply, { path: 'src/form.ts', operation: 'DELETE' }, current)
    expect(drafted.edit.after).toBeNull()
    expect(drafted.edit.before).toBe(current)
  })
})
