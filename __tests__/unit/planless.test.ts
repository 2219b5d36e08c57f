import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  minimalFix,
  planBranchName,
  rankCandidates,
  searchTerms
} from '../../src/planning/index.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })))

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-rank-'))
  dirs.push(dir)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  return dir
}

describe('searchTerms', () => {
  it('finds identifiers, paths and quoted text, and leaves plain words out', () => {
    const terms = searchTerms(
      'The parseConfig() helper in `src/app.ts` fails; load_settings and the ' +
        'HttpClient throw "connection reset". It doesn\'t retry. See https://x.io/a.ts and v1.2.3.'
    )
    expect(terms.identifiers).toEqual(
      expect.arrayContaining(['parseConfig', 'load_settings', 'HttpClient'])
    )
    expect(terms.identifiers).not.toContain('helper')
    expect(terms.identifiers).not.toContain('retry')
    expect(terms.paths).toEqual(['src/app.ts'])
    expect(terms.phrases).toEqual(['connection reset'])
  })

  it('reads a called plain word as an identifier, and dotted names by part', () => {
    const terms = searchTerms('Calling `config.reload()` and start( ) breaks')
    expect(terms.identifiers).toEqual(expect.arrayContaining(['config', 'reload']))
  })
})

describe('rankCandidates', () => {
  it('ranks the defining file over files that only mention the name, and drops the rest', () => {
    const dir = tree({
      'src/a.js': 'const x = parseConfig(text)\n',
      'src/config.js': 'export function parseConfig(text) {\n  return {}\n}\n',
      'src/b.js': 'nothing here\n',
      'lib/tool.py': 'def load_settings(path):\n    pass\n'
    })
    const ranked = rankCandidates(
      dir,
      ['lib/tool.py', 'src/a.js', 'src/b.js', 'src/config.js'],
      searchTerms('parseConfig and load_settings break')
    )
    expect(ranked.map((c) => c.path)).toEqual(['lib/tool.py', 'src/config.js', 'src/a.js'])
    expect(ranked[1]!.reasons).toContain('defines parseConfig')
    expect(ranked[1]!.excerpt).toContain('1 | export function parseConfig(text) {')
  })

  it('puts a path named in the issue first and windows a long file around the definition', () => {
    const long = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`)
    long[119] = 'const handleRequest = async (req) => {'
    const dir = tree({ 'src/server.js': long.join('\n'), 'docs/guide.md': 'handleRequest\n' })
    const ranked = rankCandidates(
      dir,
      ['docs/guide.md', 'src/server.js'],
      searchTerms('`src/server.js`: handleRequest hangs')
    )
    expect(ranked[0]!.path).toBe('src/server.js')
    expect(ranked[0]!.excerpt).toMatch(/^\(200 lines, lines 112-128 shown\)/)
    expect(ranked[0]!.excerpt).toContain('120 | const handleRequest = async (req) => {')
  })
})

describe('planBranchName', () => {
  it.each([
    [12, 'parseConfig ignores the PORT setting!', 'fix/12-parseconfig-ignores-the-port-setting'],
    [3, '  ../../etc/passwd; rm -rf ~ `x`', 'fix/3-etc-passwd-rm-rf-x'],
    [4, '日本語だけ', 'fix/4'],
    [5, 'a'.repeat(30) + ' ' + 'b'.repeat(30), `fix/5-${'a'.repeat(30)}`]
  ])('#%i %j → %s', (number, title, branch) => {
    expect(planBranchName(number, title)).toBe(branch)
    expect(branch).toMatch(/^fix\/\d+(-[a-z0-9-]+)?$/)
  })
})

describe('minimalFix', () => {
  it('counts added and removed lines, not headers, against the limit of 100', () => {
    const diff = '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n'
    expect(minimalFix(diff)).toEqual({
      changed_lines: 2,
      added: 1,
      removed: 1,
      limit: 100,
      is_minimal: true
    })
    const big = `--- a/x\n+++ b/x\n@@ -0,0 +1,100 @@\n${'+x\n'.repeat(100)}`
    expect(minimalFix(big).is_minimal).toBe(false)
  })
})
