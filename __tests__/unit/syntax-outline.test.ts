import { describe, expect, it } from 'vitest'
import { syntaxOutline } from '../../src/edits/index.js'
import { outlineOf } from '../../src/model/index.js'

const TS = [
  "import { readFileSync } from 'node:fs'", // 1
  "import type { Config } from './config.js'", // 2
  '', // 3
  'export class Loader {', // 4
  '  private cache = new Map()', // 5
  '  load(path: string): Config {', // 6
  '    const inner = () => 1', // 7
  '    return JSON.parse(readFileSync(path, "utf8"))', // 8
  '  }', // 9
  '}', // 10
  '', // 11
  'export const parse = (text: string) => text.trim()', // 12
  'const LIMIT = 3', // 13
  'function helper() {', // 14
  '  return LIMIT', // 15
  '}', // 16
  'interface Shape { size: number }', // 17
  ''
].join('\n')

const PY = [
  'import os', // 1
  'from a.b import c', // 2
  '', // 3
  'class Widget:', // 4
  '    @property', // 5
  '    def size(self):', // 6
  '        def inner():', // 7
  '            pass', // 8
  '        return 1', // 9
  '', // 10
  'def helper():', // 11
  '    return os.sep', // 12
  ''
].join('\n')

describe('syntaxOutline', () => {
  it('lists the imports and the definitions of a TypeScript file, not what is inside a function', async () => {
    expect(await syntaxOutline('src/loader.ts', TS)).toEqual({
      imports: [1, 2],
      definitions: [4, 6, 12, 14, 17]
    })
  })

  it('lists the methods of a Python class, decorated or not, and not a nested function', async () => {
    expect(await syntaxOutline('tool.py', PY)).toEqual({ imports: [1, 2], definitions: [4, 6, 11] })
  })

  it('is null for a language it does not know', async () => {
    expect(await syntaxOutline('notes.txt', 'def x():\n')).toBeNull()
  })

  it("feeds the window's outline: a method no line pattern finds is listed", async () => {
    const lines = ['package app;', '', 'import java.util.List;', '', 'public class Server {']
    for (let i = 0; i < 30; i++)
      lines.push(
        `    public int handle${i}(List<String> xs) {`,
        '        return xs.size();',
        '    }'
      )
    lines.push('}', '')
    const text = lines.join('\n')
    const syntax = await syntaxOutline('src/Server.java', text)
    const outline = outlineOf(text.split('\n'), 58, 63, syntax)
    expect(outline).toContain('     3: import java.util.List;')
    expect(outline).toContain('     6:     public int handle0(List<String> xs) {')
    expect(outlineOf(text.split('\n'), 58, 63)).not.toContain(
      '     6:     public int handle0(List<String> xs) {'
    )
  })
})
