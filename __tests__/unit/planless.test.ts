import { mkdtempSync, rmSync, writeFileSync, mkdirSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Git } from '../../src/git/index.js'
import {
  findCandidates,
  listRepoFiles,
  minimalFix,
  planBranchName,
  rankCandidates,
  searchTerms
} from '../../src/planning/index.js'
import { PathPolicy } from '../../src/policy/index.js'
import { createRepo } from '../support/repo.js'

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

  it("gives each candidate the lines of the definition's block, or of the mention, as its range", () => {
    const js = Array.from({ length: 50 }, (_, i) => `// filler ${i + 1}`)
    js.splice(
      29,
      5,
      'export function parseConfig(text) {',
      '  if (!text) {',
      '    return {}',
      '  }',
      '}'
    )
    const py = ['import os', '', 'class Loader:', '    def load_settings(self, path):']
    py.push(
      '        with open(path) as f:',
      '            return f.read()',
      '',
      '    def other(self):'
    )
    py.push('        pass')
    const dir = tree({
      'src/config.js': js.join('\n') + '\n',
      'lib/tool.py': py.join('\n') + '\n',
      'src/a.js': 'line\nconst x = parseConfig(text)\n'
    })
    const ranked = rankCandidates(
      dir,
      ['lib/tool.py', 'src/a.js', 'src/config.js'],
      searchTerms('parseConfig and load_settings break')
    )
    const range = (path: string) => ranked.find((c) => c.path === path)?.range
    expect(range('src/config.js')).toEqual([30, 34])
    expect(range('lib/tool.py')).toEqual([4, 6])
    expect(range('src/a.js')).toEqual([2, 2])
  })
})

describe('findCandidates', () => {
  const policy = new PathPolicy({ blockedGlobs: ['private/**'] })
  const issue = searchTerms(
    '`src/server.js`: parseConfig and "connection reset" break; see loadSettings'
  )

  function searchRepo() {
    const repo = createRepo({
      prefix: 'search',
      files: {
        'src/config.js': 'export function parseConfig(text) {\n  return {}\n}\n',
        'src/a.js': 'const x = parseConfig(text)\n',
        'src/server.js': 'listen()\n',
        'lib/net.py': 'raise IOError("connection reset")\n',
        'lib/loadSettings.ts': 'export {}\n',
        'docs/other.md': 'nothing here\n',
        '.env': 'parseConfig=secret\n',
        'private/keys.js': 'function parseConfig() { return "secret" }\n',
        'secrets/only.pem': 'parseConfig\n',
        '.github/workflows/ci.yml': 'run: parseConfig\n',
        '.gitignore': 'ignored/\n'
      }
    })
    repo.write('untracked/new.js', 'parseConfig()\n')
    repo.write('ignored/x.js', 'parseConfig()\n')
    repo.write('bin/blob.js', 'parseConfig\0binary')
    symlinkSync('../src/config.js', join(repo.dir, 'src/link.js'))
    return repo
  }

  it('ranks exactly what ranking every policy-allowed listed file did, reading no refused file', async () => {
    const repo = searchRepo()
    try {
      const git = await Git.open(repo.dir)
      const { repo: files, candidates } = await findCandidates(git, policy, issue)
      // The old pipeline: the whole listing through the policy, then every file read and scored.
      const allowed = files.files.filter((path) => policy.check(path) === undefined)
      expect(candidates).toEqual(rankCandidates(repo.dir, allowed, issue))
      expect(candidates.map((c) => c.path).sort()).toEqual([
        'lib/loadSettings.ts',
        'lib/net.py',
        'src/a.js',
        'src/config.js',
        'src/server.js',
        'untracked/new.js'
      ])
      expect(JSON.stringify(candidates)).not.toContain('secret')
      expect(files.files).toContain('.env')
      expect(files.files).not.toContain('ignored/x.js')
    } finally {
      repo.cleanup()
    }
  })

  it('offers a folder for a new file only when it holds a file the policy allows', async () => {
    const repo = searchRepo()
    try {
      const files = await listRepoFiles(await Git.open(repo.dir), policy)
      expect(files.usableFolder('src')).toBe(true)
      expect(files.usableFolder('')).toBe(true)
      for (const refused of ['private', 'secrets', '.github', '.github/workflows', 'nowhere'])
        expect(files.usableFolder(refused)).toBe(false)
      expect(files.shownFolders(60)).toEqual(['bin', 'docs', 'lib', 'src', 'untracked'])
      expect(files.shownFolders(2)).toEqual(['bin', 'docs'])
    } finally {
      repo.cleanup()
    }
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

  it('a docs-only change gets a docs/ branch; one code file among them keeps fix/', () => {
    const title = 'README install step is wrong'
    expect(planBranchName(8, title, ['README.md', 'docs/install.rst'])).toBe(
      'docs/8-readme-install-step-is-wrong'
    )
    expect(planBranchName(8, title, ['README.md', 'src/install.ts'])).toBe(
      'fix/8-readme-install-step-is-wrong'
    )
    expect(planBranchName(8, title, [])).toBe('fix/8-readme-install-step-is-wrong')
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
