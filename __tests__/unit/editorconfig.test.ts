import { describe, expect, it } from 'vitest'
import { endsBeforeTimeout } from '../support/timeouts.js'
import { Git } from '../../src/git/index.js'
import { EditorconfigRules, restyleAdded } from '../../src/editorconfig/index.js'
import { createRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const TABS = { indent_style: 'tab', indent_size: 4, trim_trailing_whitespace: true } as const

describe('restyleAdded', () => {
  it('turns the added lines to tabs and trims them, leaving every kept line as it was', () => {
    const before = 'function f() {\n\treturn 1   \n}\n    legacy spaces  \n'
    const after =
      'function f() {\n    const x = 2  \n        if (x) return x\t\n\treturn 1   \n}\n    legacy spaces  \n'
    expect(restyleAdded(before, after, TABS)).toBe(
      'function f() {\n\tconst x = 2\n\t\tif (x) return x\n\treturn 1   \n}\n    legacy spaces  \n'
    )
  })

  it('turns tabs to spaces for indent_style = space, keeping the width and any alignment', () => {
    const rules = { indent_style: 'space', indent_size: 2, tab_width: 4 } as const
    expect(restyleAdded('a\n', 'a\n\tb\n\t  c\n', rules)).toBe('a\n    b\n      c\n')
  })

  it('infers a step of 2 from the added lines when indent_size is unset', () => {
    const after = 'x {\n  a\n    b\n}\n'
    expect(restyleAdded('x {\n}\n', after, { indent_style: 'tab' })).toBe('x {\n\ta\n\t\tb\n}\n')
  })

  it('leaves indentation alone in a file its own lines indent the other way throughout', () => {
    const before = 'def f():\n    return 1\n'
    const after = 'def f():\n    x = 1\n    return 1\n'
    expect(restyleAdded(before, after, { indent_style: 'tab', indent_size: 4 })).toBe(after)
  })

  it('adds the final newline only when the edit wrote the last line, and applies end_of_line to a new file', () => {
    const rules = { insert_final_newline: true, end_of_line: 'crlf' } as const
    expect(restyleAdded(null, 'a\nb', rules)).toBe('a\r\nb\r\n')
    // The last line untouched: a file without a final newline keeps it so.
    expect(restyleAdded('a\r\nb', 'c\r\nb', rules)).toBe('c\r\nb')
    expect(restyleAdded('a\r\n', 'a\r\nb', rules)).toBe('a\r\nb\r\n')
    expect(restyleAdded('a\n', 'a\nb\n', { insert_final_newline: false })).toBe('a\nb')
  })

  it('keeps the ending of a file whose lines all use another one (CRLF work tree, LF rule)', () => {
    const rules = { end_of_line: 'lf', insert_final_newline: true } as const
    expect(restyleAdded('a\r\nb\r\n', 'a\r\nx\r\nb\r\n', rules)).toBe('a\r\nx\r\nb\r\n')
    // A mixed reply in an LF file gets the rule's ending on the lines it added.
    expect(restyleAdded('a\nb\n', 'a\nx\r\nb\n', rules)).toBe('a\nx\nb\n')
  })

  it('writes the byte order mark of a new file by charset, and nothing without rules', () => {
    expect(restyleAdded(null, 'a\n', { charset: 'utf-8-bom' })).toBe('\uFEFFa\n')
    expect(restyleAdded(null, '\uFEFFa\n', { charset: 'utf-8' })).toBe('a\n')
    expect(restyleAdded('\uFEFFa\n', '\uFEFFa\nb\n', { charset: 'utf-8' })).toBe('\uFEFFa\nb\n')
    expect(restyleAdded('a\n', 'a  \n\tb\n', {})).toBe('a  \n\tb\n')
  })
})

describe('EditorconfigRules', () => {
  it('matches sections by glob, the nearest file last, and stops at root = true', async () => {
    const rules = await EditorconfigRules.of({
      '.editorconfig':
        'root = true\n[*]\nindent_style = space\nindent_size = 2\n[*.go]\nindent_style = tab\n[Makefile]\nindent_style = tab\n',
      'lib/.editorconfig': '[*.py]\nindent_size = 4\ntrim_trailing_whitespace = true\n'
    })
    expect(rules.rulesFor('src/a.ts')).toEqual({
      indent_style: 'space',
      indent_size: 2,
      tab_width: 2
    })
    expect(rules.rulesFor('cmd/main.go')).toMatchObject({ indent_style: 'tab' })
    expect(rules.rulesFor('Makefile')).toMatchObject({ indent_style: 'tab' })
    expect(rules.rulesFor('lib/x/tool.py')).toEqual({
      indent_style: 'space',
      indent_size: 4,
      tab_width: 4,
      trim_trailing_whitespace: true
    })
    const stopped = await EditorconfigRules.of({
      '.editorconfig': '[*]\ninsert_final_newline = true\n',
      'sub/.editorconfig': 'root = true\n[*]\nend_of_line = crlf\n'
    })
    expect(stopped.rulesFor('sub/a.txt')).toEqual({ end_of_line: 'crlf' })
  })

  it("reads the base commit's files, not the work tree's", async () => {
    const repo = createRepo({
      prefix: 'editorconfig',
      files: { '.editorconfig': '[*]\nindent_style = tab\n', 'src/a.c': 'int x;\n' }
    })
    cleanups.push(() => repo.cleanup())
    const base = repo.git('rev-parse', 'HEAD')
    repo.write('.editorconfig', '[*]\nindent_style = space\n')
    repo.write('src/.editorconfig', '[*]\ntrim_trailing_whitespace = false\n')
    const rules = await EditorconfigRules.read(await Git.open(repo.dir), base, ['src/a.c'])
    expect(rules.rulesFor('src/a.c')).toEqual({ indent_style: 'tab' })
  })
})

describe('a hostile .editorconfig', () => {
  it('cannot hang the run: sections whose glob the matcher cannot match in bounded time are left out, the others apply', async () => {
    const text = [
      'root = true',
      `[${'*a'.repeat(9)}b]`,
      'indent_style = space',
      `[${'{a,b}'.repeat(24)}]`,
      'indent_style = space',
      '[{0..99999999}]',
      'indent_style = space',
      '[*.py]',
      'indent_style = tab',
      'indent_size = 4'
    ].join('\n')
    const rules = await EditorconfigRules.of({ '.editorconfig': text })
    const path = `${'a'.repeat(40)}/${'a'.repeat(40)}/${'a'.repeat(60)}.py`
    // Minutes or more on the old code (the star glob alone: 13 s with 8 stars, 10 never end);
    // milliseconds now. Only a hang is asserted: vitest cannot interrupt synchronous work.
    const found = endsBeforeTimeout(() => rules.rulesFor(path))
    expect(found).toMatchObject({ indent_style: 'tab', indent_size: 4 })
  })
})
