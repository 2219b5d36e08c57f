import { mkdtempSync, rmSync, utimesSync, writeFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { newWalk, walk } from '../../src/git/repo-entries.js'

/**
 * The listing RepoIntegrity compares (src/git/repo-entries.ts): within what it keeps of all
 * files' bytes, and past it, where a file is known by its stat. Attack round 8: a hook that
 * left 400 files of 64 MiB in .git had every byte kept at once, and the run was killed for
 * memory before .git was put back.
 */

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function folderWith(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'patchsmith-entries-'))
  folders.push(folder)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text)
  return folder
}

const listing = (folder: string, kept: number) => {
  const into = newWalk(new Set(), 1000, kept)
  walk(folder, into)
  return into
}

it('keeps bytes up to what it may keep in all, then knows files by their stat', () => {
  const folder = folderWith({ a: 'x'.repeat(60), b: 'y'.repeat(60), c: 'z'.repeat(60) })
  const into = listing(folder, 100)
  const kept = [...into.entries].filter(([, entry]) => entry.content).map(([path]) => path)
  expect(kept).toEqual([join(folder, 'a')])
  expect(into.keptLeft).toBe(40)
})

it('sees a file known by its stat change even where its size and mtime are put back', () => {
  const folder = folderWith({ a: 'x'.repeat(60) })
  const file = join(folder, 'a')
  const before = listing(folder, 0).entries.get(file)!
  expect(before.content).toBeUndefined()
  const { atime, mtime, ctimeMs } = statSync(file)
  // Once the file system's clock has moved past the file's ctime (coarse: a tick of the kernel).
  const probe = join(folder, 'probe')
  for (let tries = 0; tries < 100_000; tries++) {
    writeFileSync(probe, '')
    if (statSync(probe).ctimeMs > ctimeMs) break
  }
  rmSync(probe)
  writeFileSync(file, 'e'.repeat(60))
  utimesSync(file, atime, mtime)
  expect(listing(folder, 0).entries.get(file)!.hash).not.toBe(before.hash)
})
