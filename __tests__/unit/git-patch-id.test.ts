import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { patchId } from '../../src/git/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'

const repos: TestRepo[] = []
afterEach(() => repos.splice(0).forEach((repo) => repo.cleanup()))

function gitPatchId(repo: TestRepo, patch: Buffer): string {
  const out = execFileSync('git', ['patch-id', '--stable'], { cwd: repo.dir, input: patch })
  return out.toString().split(' ')[0]!.trim()
}

function commitPatch(repo: TestRepo, sha: string): Buffer {
  const out = execFileSync('git', ['diff-tree', '-p', '--full-index', '--root', sha], {
    cwd: repo.dir
  })
  return out.subarray(out.indexOf(0x0a) + 1)
}

describe('patchId (git patch-id --stable without a process)', () => {
  it('equals git on a history of edits, whitespace changes, CRLF, modes, deletions and binaries', () => {
    const repo = createRepo({ files: { 'seed.txt': 'seed\n' }, prefix: 'patchid' })
    repos.push(repo)
    let seed = 11
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const words = [
      'a',
      '  b',
      '\tc',
      'x y',
      '}',
      '',
      '{',
      'return 1',
      'const é = 2',
      ' ',
      'ünï',
      '-',
      '+'
    ]
    const text = () => {
      const lines = Array.from({ length: random(25) }, () => words[random(words.length)])
      return lines.join(random(5) === 0 ? '\r\n' : '\n') + (random(3) ? '\n' : '')
    }
    const compared: string[] = []
    for (let round = 0; round < 40; round++) {
      for (let f = 0; f < 5; f++) {
        const path = join(repo.dir, `f${f}.txt`)
        const action = random(6)
        if (action === 0 && existsSync(path)) rmSync(path)
        else if (action === 1 && existsSync(path)) writeFileSync(path, `${repo.read(`f${f}.txt`)} `)
        else if (action === 2) writeFileSync(path, text())
        else if (action === 3 && existsSync(path)) chmodSync(path, random(2) ? 0o755 : 0o644)
        else if (action === 4 && random(6) === 0)
          writeFileSync(join(repo.dir, `b${f}.bin`), Buffer.from([0, random(255), 1]))
      }
      repo.git('add', '--all')
      repo.git('commit', '--quiet', '--allow-empty', '-m', `round ${round}`)
      const patch = commitPatch(repo, 'HEAD')
      expect(patchId(patch), `round ${round}`).toBe(patch.length > 0 ? gitPatchId(repo, patch) : '')
      if (patch.length > 0) compared.push(patchId(patch))
    }
    expect(new Set(compared).size).toBeGreaterThan(25)
  })

  it('ignores whitespace and line numbers but not content', () => {
    const a = 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-old\n+new\n'
    const moved = a.replace('@@ -1,2 +1,2 @@', '@@ -40,2 +41,2 @@')
    const spaced = a.replace('+new', '+  new  ')
    expect(patchId(moved)).toBe(patchId(a))
    expect(patchId(spaced)).toBe(patchId(a))
    expect(patchId(a.replace('+new', '+newer'))).not.toBe(patchId(a))
    expect(patchId('')).toBe('')
    expect(patchId(a)).toMatch(/^[0-9a-f]{40}$/)
  })
})
