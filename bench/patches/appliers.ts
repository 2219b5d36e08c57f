import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { applyPatch, parsePatch } from 'diff'
import { InvalidDiffError } from '../../src/contract/index.js'
import { assertStillParses, editsFromReply, type PlannedFile } from '../../src/edits/index.js'
import type { BenchCase } from './corpus.js'

/** What an applier left: the files after (path → content, null: deleted), or a refusal. */
export type Outcome =
  { refused: true; reason: string } | { refused: false; files: Record<string, string | null> }

export interface Applier {
  name: 'patchsmith' | 'git-apply' | 'gnu-patch-fuzz3' | 'jsdiff-fuzz2'
  apply(testCase: BenchCase): Outcome | Promise<Outcome>
}

/** The files the case plans to change: its target alone, or every file of a multi-file commit. */
function planned(testCase: BenchCase): PlannedFile[] {
  const paths = testCase.target ? [testCase.target] : Object.keys(testCase.files)
  return paths.map((path) => ({
    path,
    operation: testCase.files[path] == null ? 'CREATE' : 'MODIFY',
    content: testCase.files[path] ?? null
  }))
}

/** Patchsmith's applier with its syntax gate, as the agent runs them on a reply. */
export const patchsmith: Applier = {
  name: 'patchsmith',
  async apply(testCase) {
    try {
      const edits = editsFromReply('udiff', testCase.patch, planned(testCase))
      await assertStillParses(edits)
      // The agent refuses an edit that changes nothing; so does the benchmark.
      if (edits.every((drafted) => drafted.edit.after === drafted.edit.before))
        return { refused: true, reason: 'no-change' }
      const files = { ...testCase.files }
      for (const { edit } of edits) files[edit.path] = edit.after
      return { refused: false, files }
    } catch (error) {
      if (error instanceof InvalidDiffError)
        return { refused: true, reason: String(error.details.rule) }
      throw error
    }
  }
}

/** `git apply` with its defaults (strict: exact context, `-p1`), in a scratch folder. */
export const gitApply: Applier = {
  name: 'git-apply',
  apply: (testCase) => inScratch(testCase, 'git', ['apply'])
}

/** GNU `patch -p1 --fuzz=3`, as people apply a reply by hand; a partial application is a refusal. */
export const gnuPatch: Applier = {
  name: 'gnu-patch-fuzz3',
  apply: (testCase) =>
    inScratch(testCase, 'patch', [
      '-p1',
      '--fuzz=3',
      '--batch',
      '--forward',
      '--no-backup-if-mismatch',
      '-i'
    ])
}

/** Runs a patch tool on the case's files in a scratch folder; the reply file comes last. */
function inScratch(testCase: BenchCase, command: string, args: string[]): Outcome {
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-bench-'))
  const work = join(root, 'work')
  try {
    mkdirSync(work)
    for (const [path, content] of Object.entries(testCase.files)) {
      if (content === null) continue
      mkdirSync(dirname(join(work, path)), { recursive: true })
      writeFileSync(join(work, path), content)
    }
    const patch = join(root, 'reply.patch')
    writeFileSync(patch, testCase.patch)
    const run = spawnSync(command, [...args, patch], { cwd: work, encoding: 'utf8' })
    if (run.error) return { refused: true, reason: `${command} not found` }
    if (run.status !== 0) {
      const said = `${run.stderr}\n${run.stdout}`.split('\n').find((line) => line.trim() !== '')
      return { refused: true, reason: said ?? 'failed' }
    }
    const files: Record<string, string | null> = {}
    for (const path of Object.keys(testCase.files)) files[path] = null
    for (const path of listFiles(work)) files[path] = readFileSync(join(work, path), 'utf8')
    return { refused: false, files }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(join(dir, entry.name), base)
      : [relative(base, join(dir, entry.name)).split('\\').join('/')]
  )
}

/** jsdiff's `applyPatch` with `fuzzFactor: 2`, each file patch matched to a file by name. */
export const jsdiffFuzz2: Applier = {
  name: 'jsdiff-fuzz2',
  apply(testCase) {
    let patches
    try {
      patches = parsePatch(testCase.patch)
    } catch (error) {
      return { refused: true, reason: `parse: ${(error as Error).message}` }
    }
    patches = patches.filter((patch) => patch.hunks.length > 0)
    if (patches.length === 0) return { refused: true, reason: 'no hunks' }
    const files = { ...testCase.files }
    const paths = Object.keys(testCase.files)
    for (const patch of patches) {
      const named = [patch.newFileName, patch.oldFileName]
        .map((name) => name?.replace(/^[ab]\//, ''))
        .find((name) => name !== undefined && name in testCase.files)
      const path = named ?? (patches.length === 1 && paths.length === 1 ? paths[0] : undefined)
      if (path === undefined) return { refused: true, reason: 'unknown file' }
      const after = applyPatch(files[path] ?? '', patch, { fuzzFactor: 2 })
      if (after === false) return { refused: true, reason: 'does not apply' }
      files[path] = after
    }
    return { refused: false, files }
  }
}

export const APPLIERS: readonly Applier[] = [patchsmith, gitApply, gnuPatch, jsdiffFuzz2]
