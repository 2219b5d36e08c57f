import { spawnSync } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readReply } from '../../src/edits/index.js'
import { guardReplyClaims, PathPolicy, symlinkOnTheWay, diffPaths } from '../../src/policy/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'

/**
 * SECURITY.md 4.1 rule 6: for generated paths and headers, whatever `git apply --check --index`
 * refuses, the policy refuses too (policy-reject ⊇ git-reject). The patches are correct in
 * content, so git refuses only for their names, modes and headers.
 */
let repo: TestRepo
// The same fixed seed either way: npm test samples 30 generated paths, npm run test:deep 400.
const GENERATED = process.env.PATCHSMITH_TEST_DEEP ? 400 : 30
const policy = new PathPolicy()

beforeAll(() => {
  repo = createRepo({
    files: { 'src/a.js': 'a\n', '.env': 'SECRET=hunter2\n', 'docs/x.md': 'x\n' },
    prefix: 'differential'
  })
  mkdirSync(join(repo.root, 'outside'))
  symlinkSync('../outside', join(repo.dir, 'lnk'))
  repo.commitAll('a symlink')
  writeFileSync(join(repo.root, 'outside', 'victim.txt'), 'victim\n')
})
afterAll(() => repo.cleanup())

const FIXED = [
  'new.txt',
  'src/new.js',
  '../evil.txt',
  '../outside/victim.txt',
  '/tmp/abs.txt',
  '.git/hooks/pre-commit',
  '.GIT/hooks/x',
  'sub/.git/config',
  '.git./config',
  '.git /config',
  'git~1/config',
  'GIT~2/HEAD',
  '.git\\hooks\\x',
  'src/../x',
  './x',
  'src/./z',
  'src//y',
  'src/',
  'lnk/pwned.txt',
  'lnk',
  '.gitmodules',
  'a\tb',
  'src/\u202Egpj.js',
  'src/\u200b.js',
  'x\u0001y',
  'src/a.js/inner',
  '.env',
  '.env2',
  'docs',
  'docs/x.md/y',
  ' leading-space',
  'trailing-space ',
  'trailing-dot.',
  '-dash',
  'C:/x',
  'a:b'
]
const SEGMENTS = [
  'a',
  'src',
  '.',
  '..',
  '',
  '.git',
  'GIT~1',
  '.Git.',
  'lnk',
  'x y',
  '-x',
  '\\',
  'é',
  ':',
  '"q"',
  '\t',
  'docs'
]

/** A deterministic generator (mulberry32), so a failure can be reproduced. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function generatedPaths(count: number): string[] {
  const next = random(20_240_601)
  const paths: string[] = []
  for (let i = 0; i < count; i++) {
    const length = 1 + Math.floor(next() * 4)
    const parts = Array.from({ length }, () => SEGMENTS[Math.floor(next() * SEGMENTS.length)]!)
    paths.push(parts.join(next() < 0.1 ? '\\' : '/'))
  }
  return paths
}

/** git's C-style quoting of a name, as `diff --git "a/..."` would write it. */
function cQuote(name: string): string {
  let out = ''
  for (const byte of Buffer.from(name)) {
    const char = String.fromCharCode(byte)
    if (char === '"' || char === '\\') out += `\\${char}`
    else if (byte === 10) out += '\\n'
    else if (byte === 9) out += '\\t'
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`
    else out += char
  }
  return `"${out}"`
}

const ADD = '@@ -0,0 +1 @@\n+x\n'
function patches(path: string): Array<[string, string]> {
  return [
    [
      'git new',
      `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n${ADD}`
    ],
    ['plain new', `--- /dev/null\n+++ b/${path}\n${ADD}`],
    ['traditional', `--- /dev/null\n+++ ${path}\n${ADD}`],
    ['zz prefix', `--- /dev/null\n+++ zz/${path}\n${ADD}`],
    [
      'quoted',
      `diff --git ${cQuote(`a/${path}`)} ${cQuote(`b/${path}`)}\nnew file mode 100644\n--- /dev/null\n+++ ${cQuote(`b/${path}`)}\n${ADD}`
    ],
    [
      'mismatch',
      `diff --git a/src/a.js b/src/a.js\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`
    ],
    [
      'symlink',
      `diff --git a/${path} b/${path}\nnew file mode 120000\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+../.env\n\\ No newline at end of file\n`
    ],
    [
      'gitlink',
      `diff --git a/${path} b/${path}\nnew file mode 160000\nindex 0000000..1111111\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+Subproject commit 1111111111111111111111111111111111111111\n`
    ],
    [
      'copy',
      `diff --git a/.env b/${path}\nsimilarity index 100%\ncopy from .env\ncopy to ${path}\n`
    ]
  ]
}

/** Deletions of files that exist (with content `x`), spelled every way. */
const DELETIONS = [
  'docs/x.md',
  './docs/x.md',
  'docs//x.md',
  'docs/./x.md',
  'src/../docs/x.md',
  'lnk/victim.txt',
  '../outside/victim.txt',
  'docs/x.md ',
  '/docs/x.md'
]
const deletion = (path: string) =>
  `diff --git a/${path} b/${path}\ndeleted file mode 100644\n--- a/${path}\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n`

function gitRefuses(patch: string): boolean {
  const out = spawnSync('git', ['apply', '--check', '--index', '-'], {
    cwd: repo.dir,
    input: patch,
    encoding: 'utf8'
  })
  return out.status !== 0
}

function policyRefuses(patch: string): boolean {
  try {
    // As the agent does: the reply read once by its format, then its claims judged.
    const { claims } = readReply('udiff', patch)
    guardReplyClaims(claims, policy)
    return diffPaths(claims.sections).some((path) => symlinkOnTheWay(repo.dir, path) !== undefined)
  } catch {
    return true
  }
}

describe('the policy refuses whatever git apply --check refuses', () => {
  it('holds for fixed and generated paths in every header form', () => {
    const paths = [...FIXED, ...generatedPaths(GENERATED)]
    const missed: string[] = []
    let gitRefused = 0
    let bothAccepted = 0
    const cases = [
      ...paths.flatMap(patches),
      ...DELETIONS.map((path): [string, string] => ['delete', deletion(path)])
    ]
    for (const [form, patch] of cases) {
      const git = gitRefuses(patch)
      const ours = policyRefuses(patch)
      if (git) gitRefused++
      if (!git && !ours) bothAccepted++
      if (git && !ours) missed.push(`${form}: ${JSON.stringify(patch.split('\n').slice(0, 4))}`)
    }
    expect(missed).toEqual([])
    // The comparison means something only when git refuses some and both accept others.
    expect(gitRefused).toBeGreaterThan(200)
    expect(bothAccepted).toBeGreaterThan(5)
  }, 120_000)

  it('also refuses what git accepts but SECURITY.md 4.1 found dangerous', () => {
    const accepted = [
      `diff --git a/.env b/docs/leak.txt\nsimilarity index 100%\ncopy from .env\ncopy to docs/leak.txt\n`,
      `diff --git a/src/a.js b/src/a.js\nold mode 100644\nnew mode 100755\n`,
      `diff --git "a/\\056env" "b/\\056env"\n--- "a/\\056env"\n+++ "b/\\056env"\n@@ -1 +1 @@\n-SECRET=hunter2\n+SECRET=attacker\n`,
      `diff --git a/src/a.js b/src/a.js\n--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-SECRET=hunter2\n+SECRET=attacker\n`,
      `--- zz/.env\n+++ zz/.env\n@@ -1 +1 @@\n-SECRET=hunter2\n+SECRET=attacker\n`,
      `--- /dev/null\n+++ /.github/workflows/pwn.yml\n@@ -0,0 +1 @@\n+on: push\n`
    ]
    for (const patch of accepted) {
      expect(gitRefuses(patch), patch).toBe(false)
      expect(policyRefuses(patch), patch).toBe(true)
    }
  })
})
