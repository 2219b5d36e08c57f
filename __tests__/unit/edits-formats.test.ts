import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { InvalidDiffError, type FileChange } from '../../src/contract/index.js'
import {
  chooseEditFormat,
  WHOLE_FILE_MAX_LINES,
  detectFormat,
  editFromReply,
  formatNamed,
  jsonEditsSchema,
  resolveEditFormat,
  type PatchError,
  type ReplyFormat
} from '../../src/edits/index.js'

function refusal(action: () => unknown): PatchError & { message: string } {
  try {
    action()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidDiffError)
    const refused = error as InvalidDiffError
    return { ...(refused.details.patch_error as PatchError), message: refused.message }
  }
  throw new Error('expected INVALID_DIFF')
}

const text = (...lines: string[]) => lines.map((line) => `${line}\n`).join('')

const FILE = text(
  'def total(items):',
  '    result = 0',
  '    for item in items:',
  '        result += item.price',
  '    return result',
  '',
  '',
  'def count(items):',
  '    return len(items)'
)
const FIXED = FILE.replace(
  '        result += item.price',
  '        result += item.price * item.quantity'
)
const CHANGE: FileChange = { path: 'shop/cart.py', operation: 'MODIFY' }

describe('search-replace', () => {
  const apply = (reply: string, current: string | null = FILE, change = CHANGE) =>
    editFromReply('search-replace', reply, change, current)
  const block = (search: string[], replace: string[], path = 'shop/cart.py') =>
    [path, '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE'].join('\n')

  it('replaces the exact old text', () => {
    const drafted = apply(
      block(['        result += item.price'], ['        result += item.price * item.quantity'])
    )
    expect(drafted.edit.after).toBe(FIXED)
    expect(drafted.located).toMatchObject([{ hunk: 1, line: 4, how: 'exact' }])
  })

  it('reads blocks inside a fence with prose around, and several blocks in order', () => {
    const reply = [
      'Here is the change:',
      '```python',
      block(['        result += item.price'], ['        result += item.price * item.quantity']),
      '```',
      'and the second one:',
      '```python',
      block(
        ['def count(items):', '    return len(items)'],
        ['def count(items):', '    return sum(1 for _ in items)']
      ),
      '```'
    ].join('\n')
    expect(apply(reply).edit.after).toBe(
      FIXED.replace('    return len(items)', '    return sum(1 for _ in items)')
    )
  })

  it('gives the replacement the indentation the SEARCH lines lost', () => {
    const reply = block(
      ['for item in items:', '    result += item.price'],
      ['for item in items:', '    result += item.price * item.quantity']
    )
    const drafted = apply(reply)
    expect(drafted.edit.after).toBe(FIXED)
    expect(drafted.placements).toEqual(['whitespace'])
  })

  it('refuses a SEARCH text that occurs twice', () => {
    const twice = text('def a():', '    return 0', '', 'def b():', '    return 0')
    const error = refusal(() => apply(block(['    return 0'], ['    return 1']), twice))
    expect(error.kind).toBe('ambiguous-hunk')
    expect(error.message).toContain('lines 2, 5')
  })

  it('refuses a SEARCH text that is not in the file, showing what is nearby', () => {
    const error = refusal(() =>
      apply(block(['    for item in items:', '        result += item.cost'], ['x']))
    )
    expect(error.kind).toBe('removed-line-missing')
    expect(error.expected).toEqual(['        result += item.cost'])
    expect(error.found_nearby!.text).toContain('        result += item.price')
  })

  it('writes a new file from an empty SEARCH and refuses one on an existing file', () => {
    const create: FileChange = { path: 'shop/tax.py', operation: 'CREATE' }
    expect(apply(block([], ['RATE = 0.2'], 'shop/tax.py'), null, create).edit.after).toBe(
      'RATE = 0.2\n'
    )
    expect(refusal(() => apply(block([], ['x']))).kind).toBe('empty-search')
  })

  it('refuses an unclosed block and a reply without blocks', () => {
    expect(refusal(() => apply('<<<<<<< SEARCH\nx\n=======\ny\n')).kind).toBe('unterminated-block')
    const none = refusal(() => apply('I would change the price line.'))
    expect(none.kind).toBe('no-edits')
    expect(none.message).toContain('<<<<<<< SEARCH')
  })

  it('refuses a block for another file', () => {
    const reply = `${block(['        result += item.price'], ['x'])}\n${block(['a'], ['b'], 'shop/other.py')}`
    expect(refusal(() => apply(reply)).kind).toBe('too-many-files')
  })
})

describe('json-edits', () => {
  const apply = (reply: unknown, current: string | null = FILE, change = CHANGE) =>
    editFromReply(
      'json-edits',
      typeof reply === 'string' ? reply : JSON.stringify(reply),
      change,
      current
    )
  const edit = (start: number, end: number, newText: string, oldText?: string) => ({
    range: { start, end },
    newText,
    ...(oldText === undefined ? {} : { oldText })
  })

  it('replaces a line range whose oldText matches', () => {
    const drafted = apply({
      path: 'shop/cart.py',
      edits: [
        edit(4, 4, '        result += item.price * item.quantity', '        result += item.price')
      ]
    })
    expect(drafted.edit.after).toBe(FIXED)
    expect(drafted.located).toMatchObject([{ line: 4, how: 'exact' }])
  })

  it('applies several edits bottom-up against the original numbering', () => {
    const drafted = apply({
      path: 'shop/cart.py',
      edits: [
        edit(1, 0, '"""Cart totals."""\n\n'),
        edit(4, 4, '        result += item.price * item.quantity\n'),
        edit(9, 9, '    return sum(1 for _ in items)'),
        edit(10, 9, '\n\ndef empty(items):\n    return not items\n')
      ]
    })
    expect(drafted.edit.after).toBe(
      text(
        '"""Cart totals."""',
        '',
        ...FIXED.replace('    return len(items)', '    return sum(1 for _ in items)')
          .trimEnd()
          .split('\n'),
        '',
        '',
        'def empty(items):',
        '    return not items'
      )
    )
    expect(drafted.placements).toEqual(['hint', 'hint', 'hint', 'hint'])
  })

  it('deletes lines with an empty newText', () => {
    expect(apply({ path: 'shop/cart.py', edits: [edit(6, 9, '')] }).edit.after).toBe(
      text(...FILE.split('\n').slice(0, 5))
    )
  })

  it('accepts the payload fenced, in an apply_edits tool call, or with arguments as a string', () => {
    const payload = {
      path: 'shop/cart.py',
      edits: [edit(4, 4, '        result += item.price * item.quantity')]
    }
    expect(apply(`\`\`\`json\n${JSON.stringify(payload)}\n\`\`\``).edit.after).toBe(FIXED)
    expect(apply({ name: 'apply_edits', arguments: JSON.stringify(payload) }).edit.after).toBe(
      FIXED
    )
    expect(
      apply({ type: 'function', function: { name: 'apply_edits', arguments: payload } }).edit.after
    ).toBe(FIXED)
    expect(
      apply(
        `<tool_call>\n${JSON.stringify({ name: 'apply_edits', arguments: payload })}\n</tool_call>`
      ).edit.after
    ).toBe(FIXED)
  })

  it('takes a seed-style {diff, reasoning} reply as a unified diff', () => {
    const diff =
      '--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -3,2 +3,2 @@\n     for item in items:\n-        result += item.price\n+        result += item.price * item.quantity\n'
    expect(apply({ diff, reasoning: 'quantity was ignored' }).edit.after).toBe(FIXED)
  })

  it('refuses an oldText that differs from the range, and says where that text is', () => {
    const error = refusal(() =>
      apply({ path: 'shop/cart.py', edits: [edit(3, 3, 'x', '        result += item.price')] })
    )
    expect(error).toMatchObject({
      kind: 'old-text-mismatch',
      hunk: 1,
      found_nearby: { line: 3, text: ['    for item in items:'] }
    })
    expect(error.message).toContain('That text is at lines 4-4')
  })

  it('refuses ranges outside the file and overlapping edits', () => {
    expect(refusal(() => apply({ path: 'shop/cart.py', edits: [edit(9, 12, 'x')] })).kind).toBe(
      'range-out-of-bounds'
    )
    expect(
      refusal(() => apply({ path: 'shop/cart.py', edits: [edit(2, 4, 'x'), edit(4, 5, 'y')] })).kind
    ).toBe('overlapping-edits')
    expect(
      refusal(() => apply({ path: 'shop/cart.py', edits: [edit(3, 2, 'x'), edit(3, 2, 'y')] })).kind
    ).toBe('overlapping-edits')
  })

  it('refuses JSON of another shape, and text that is not JSON, saying what to send', () => {
    const shape = refusal(() =>
      apply({ path: 'shop/cart.py', edits: [{ range: { start: 1 }, newText: 'x' }] })
    )
    expect(shape.kind).toBe('bad-json')
    expect(shape.message).toContain('edits.0.range.end')
    expect(shape.message).toContain('"edits"')
    expect(refusal(() => apply('Sure, I will edit line 4.')).kind).toBe('bad-json')
  })

  it('exports the payload schema for structured outputs', () => {
    expect(jsonEditsSchema().safeParse({ path: 'a', edits: [edit(1, 1, 'x', 'y')] }).success).toBe(
      true
    )
    expect(
      jsonEditsSchema().safeParse({
        path: 'a',
        edits: [{ range: { start: 1, end: 1 }, oldText: null, newText: 'x' }]
      }).success
    ).toBe(true)
    expect(jsonEditsSchema().safeParse({ path: 'a', edits: [] }).success).toBe(false)
  })
})

describe('whole-file', () => {
  const apply = (reply: string, current: string | null = FILE, change = CHANGE) =>
    editFromReply('whole-file', reply, change, current)

  it('replaces the file with the content between ^^^path and ^^^end, ignoring prose', () => {
    const drafted = apply(`Updated file:\n^^^shop/cart.py\n${FIXED}^^^end\nDone.`)
    expect(drafted.edit.after).toBe(FIXED)
    expect(drafted.claimedPath).toBeUndefined()
  })

  it('creates new and empty files, with the style line endings', () => {
    const create: FileChange = { path: 'shop/tax.py', operation: 'CREATE' }
    const style = { end_of_line: 'crlf' as const, insert_final_newline: true }
    expect(
      editFromReply('whole-file', '^^^shop/tax.py\nRATE = 0.2\n^^^end', create, null, { style })
        .edit.after
    ).toBe('RATE = 0.2\r\n')
    expect(
      apply('^^^shop/empty.py\n^^^end', null, { path: 'shop/empty.py', operation: 'CREATE' }).edit
        .after
    ).toBe('')
  })

  it('deletes with ^^^delete only when the plan deletes the file', () => {
    expect(
      apply('^^^shop/cart.py\n^^^delete', FILE, { path: 'shop/cart.py', operation: 'DELETE' }).edit
        .after
    ).toBeNull()
    expect(refusal(() => apply('^^^shop/cart.py\n^^^delete')).kind).toBe('delete-refused')
  })

  it('keeps the file own line endings and final newline', () => {
    const crlf = 'a\r\nb'
    expect(apply('^^^shop/cart.py\na\nB\n^^^end', crlf).edit.after).toBe('a\r\nB')
  })

  it('refuses content wrapped in a fence, except in markdown files', () => {
    expect(refusal(() => apply('^^^shop/cart.py\n```python\nx = 1\n```\n^^^end')).kind).toBe(
      'fenced-content'
    )
    const readme: FileChange = { path: 'README.md', operation: 'MODIFY' }
    expect(apply('^^^README.md\n```sh\nnpm i\n```\n^^^end', 'old\n', readme).edit.after).toBe(
      '```sh\nnpm i\n```\n'
    )
  })

  it('refuses an unterminated block and a reply without blocks', () => {
    expect(refusal(() => apply('^^^shop/cart.py\nx = 1\n')).kind).toBe('unterminated-block')
    expect(refusal(() => apply('x = 1')).message).toContain('^^^end')
  })

  it('applies a one-block reply with another path to the planned file, and refuses a second file', () => {
    expect(apply(`^^^cart.py\n${FIXED}^^^end`).claimedPath).toBe('cart.py')
    expect(
      refusal(() => apply(`^^^shop/cart.py\n${FIXED}^^^end\n^^^shop/other.py\nx\n^^^end`)).kind
    ).toBe('too-many-files')
  })
})

describe('auto edit format', () => {
  it.each([
    ['claude-sonnet-4', 'search-replace'],
    ['anthropic/claude-3.5-sonnet', 'search-replace'],
    ['gemini-2.5-pro', 'search-replace'],
    ['gpt-4o-mini', 'json-edits'],
    ['qwen2.5-coder:7b', 'whole-file'],
    ['meta-llama/llama-3.1-8b-instruct', 'whole-file'],
    ['gpt-4.1', 'udiff'],
    ['o3-mini', 'udiff'],
    ['some-new-model', 'udiff']
  ])('picks for %s: %s', (model, format) => {
    expect(chooseEditFormat(model)).toBe(format)
    expect(resolveEditFormat('auto', model)).toBe(format)
  })

  it('keeps a format that was chosen explicitly', () => {
    expect(resolveEditFormat('whole-file', 'gpt-4.1')).toBe('whole-file')
    expect(resolveEditFormat('udiff', 'qwen2.5-coder:7b', 'x\n'.repeat(1000))).toBe('udiff')
  })

  it('gives a small model search-replace instead of whole files for a large file', () => {
    const small = 'line\n'.repeat(WHOLE_FILE_MAX_LINES - 1)
    const large = 'line\n'.repeat(WHOLE_FILE_MAX_LINES + 1)
    expect(resolveEditFormat('auto', 'qwen2.5-coder:7b', small)).toBe('whole-file')
    expect(resolveEditFormat('auto', 'qwen2.5-coder:7b', large)).toBe('search-replace')
    expect(resolveEditFormat('auto', 'qwen2.5-coder:7b', null)).toBe('whole-file')
    expect(resolveEditFormat('auto', 'gpt-4.1', large)).toBe('udiff')
  })
})

describe('reading a reply in whichever format it is written (auto)', () => {
  const replies: Record<ReplyFormat, string> = {
    udiff:
      '--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -4 +4 @@\n-        result += item.price\n+        result += item.price * item.quantity\n',
    'search-replace':
      'shop/cart.py\n<<<<<<< SEARCH\n        result += item.price\n=======\n        result += item.price * item.quantity\n>>>>>>> REPLACE\n',
    'json-edits': JSON.stringify({
      name: 'apply_edits',
      arguments: {
        path: 'shop/cart.py',
        edits: [
          { range: { start: 4, end: 4 }, newText: '        result += item.price * item.quantity' }
        ]
      }
    }),
    'whole-file': `^^^shop/cart.py\n${FIXED}^^^end\n`
  }

  it.each(Object.entries(replies))('detects and applies %s', (format, reply) => {
    expect(detectFormat(reply)).toBe(format)
    expect(editFromReply('auto', reply, CHANGE, FILE).edit.after).toBe(FIXED)
  })

  it('reads a reply written plainly in another format than the one asked for', () => {
    expect(editFromReply('whole-file', replies.udiff, CHANGE, FILE).edit.after).toBe(FIXED)
    expect(editFromReply('udiff', replies['search-replace'], CHANGE, FILE).edit.after).toBe(FIXED)
    // … but a reply that is broken in the asked format is refused as that.
    const error = refusal(() =>
      editFromReply('search-replace', '<<<<<<< SEARCH\nx\n', CHANGE, FILE)
    )
    expect(error.kind).toBe('unterminated-block')
  })
})

describe('the example in each draft prompt', () => {
  const APP = text("import { start } from './server.js'", 'const port = 3000', 'start(3000)')
  const expected: Record<ReplyFormat, string> = {
    udiff: text(
      "import { start } from './server.js'",
      'const port = 3000',
      'start(port)',
      'console.log(`listening on ${port}`)'
    ),
    'search-replace': text(
      "import { start } from './server.js'",
      'const port = 3000',
      'console.log(`listening on ${port}`)',
      'start(3000)'
    ),
    'json-edits': text(
      "import { start } from './server.js'",
      'const port = 3000',
      'start(3000)'
    ).replace('const port = 3000\nstart(3000)', 'start(3000)'),
    'whole-file': text('const port = 3000', 'console.log(`listening on ${port}`)')
  }

  /** The last fenced block of the prompt: its canonical example reply. */
  const example = (format: ReplyFormat) => {
    const { name, dir } = formatNamed(format).template
    const prompt = readFileSync(join(dir, `${name}.md`), 'utf8')
    const blocks = [...prompt.matchAll(/```text\n([\s\S]*?)```/g)]
    return blocks.at(-1)![1]!
  }

  it.each(Object.keys(expected) as ReplyFormat[])('is a valid %s reply', (format) => {
    const file =
      format === 'json-edits'
        ? text('// app', "import { start } from './server.js'", 'const port = 3000')
        : APP
    const result = editFromReply(
      format,
      example(format),
      { path: 'src/app.ts', operation: 'MODIFY' },
      file
    )
    expect(result.claimedPath).toBeUndefined()
    if (format === 'json-edits') {
      expect(result.edit.after).toBe(
        text(
          '// app',
          "import { start } from './server.js'",
          'const port = 3000',
          'console.log(`listening on ${port}`)'
        )
      )
    } else {
      expect(result.edit.after).toBe(expected[format])
    }
  })
})
