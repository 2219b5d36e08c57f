import { constants, lstatSync, readdirSync, type BigIntStats } from 'node:fs'
import { open, realpath } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { parseJUnitXml } from './junit.js'
import type { TestCase, TestReport } from './types.js'

/** How much of what a command wrote is read: the files are untrusted, written by code the model wrote. */
interface ReportFileLimits {
  maxFiles: number
  maxFileBytes: number
  maxTotalBytes: number
  /** Folders listed while looking for modules (`<module>/target/surefire-reports`). */
  maxDirs: number
}

export const REPORT_FILE_LIMITS: ReportFileLimits = {
  maxFiles: 200,
  maxFileBytes: 2 * 1024 * 1024,
  maxTotalBytes: 16 * 1024 * 1024,
  maxDirs: 400
}

/** Where Maven Surefire and Failsafe and Gradle write `TEST-*.xml`, under a module's folder. */
const REPORT_DIRS: readonly (readonly [output: string, reports: string])[] = [
  ['target', 'surefire-reports'],
  ['target', 'failsafe-reports'],
  ['build', 'test-results']
]
const REPORT_NAME = /^TEST-.+\.xml$/
// Modules sit at the top or one or two folders down (`services/api/target/...`).
const MODULE_DEPTH = 2
// Gradle nests per test task (`build/test-results/test/`, `.../integrationTest/`).
const REPORT_DEPTH = 2
const SKIPPED_DIRS = new Set(['node_modules', 'src', 'target', 'build'])
// `pytest --junitxml=PATH`, `--junit-xml PATH`, quoted or not.
const NAMED_PATH = /--junit-?xml(?:=|\s+)(?:"([^"]+)"|'([^']+)'|([^\s;&|]+))/g

export interface ReportFilesRead {
  /** The tests of every fresh report file, merged (a failing record wins over a passing one). */
  report?: TestReport
  /** The files read, relative to the work tree. */
  files: string[]
  /** Files passed over, each with why (a link, outside the work tree, over a cap, unreadable). */
  refused: string[]
}

/**
 * The JUnit XML files one command wrote in the work tree: taken stock of before the command
 * runs, read after it, so only files it created or rewrote count (none is deleted). Never
 * through a symbolic link, never outside the work tree, with caps on files and bytes.
 */
export class JUnitReportFiles {
  private constructor(
    private readonly root: string,
    private readonly named: readonly string[],
    private readonly before: ReadonlyMap<string, string>,
    private readonly limits: ReportFileLimits
  ) {}

  static async before(
    root: string,
    command: string,
    limits: ReportFileLimits = REPORT_FILE_LIMITS
  ): Promise<JUnitReportFiles> {
    const named = namedPaths(root, command)
    const stock = new Map<string, string>()
    for (const [path, stats] of candidates(root, named, limits)) stock.set(path, signature(stats))
    return new JUnitReportFiles(root, named, stock, limits)
  }

  /**
   * The fresh report files, parsed; `mask` hides secrets before anything is parsed. `from`: where
   * the command's writes are (an overlay's upper folder, before it is dropped), else the tree.
   */
  async read(
    mask: (text: string) => string = (t) => t,
    from: string = this.root
  ): Promise<ReportFilesRead> {
    const refused: string[] = []
    const fresh = [...candidates(from, this.named, this.limits, refused)].filter(
      ([path, stats]) => this.before.get(path) !== signature(stats)
    )
    const files: string[] = []
    const tests = new Map<string, TestCase>()
    let total = 0
    for (const [path, stats] of fresh) {
      if (files.length >= this.limits.maxFiles) {
        refused.push(`${path}: over ${this.limits.maxFiles} files`)
        continue
      }
      const size = Number(stats.size)
      if (size > this.limits.maxFileBytes || total + size > this.limits.maxTotalBytes) {
        refused.push(`${path}: over the size cap`)
        continue
      }
      const text = await readInside(from, path, stats)
      if (typeof text !== 'string') {
        refused.push(`${path}: ${text.refused}`)
        continue
      }
      total += Buffer.byteLength(text)
      files.push(path)
      for (const test of parseJUnitXml(mask(text))?.tests ?? []) {
        const known = tests.get(test.id)
        if (!known || (known.status !== 'failed' && test.status === 'failed'))
          tests.set(test.id, test)
      }
    }
    return {
      ...(tests.size > 0 ? { report: { runner: 'junit', tests: [...tests.values()] } } : {}),
      files,
      refused
    }
  }
}

/** The report paths a command names, relative to the work tree; none that leaves it. */
export function namedPaths(root: string, command: string): string[] {
  const paths: string[] = []
  for (const match of command.matchAll(NAMED_PATH)) {
    const given = match[1] ?? match[2] ?? match[3] ?? ''
    const rel = relative(root, resolve(root, given))
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) paths.push(rel.split(sep).join('/'))
  }
  return [...new Set(paths)]
}

/**
 * Every report file there is now, with its lstat: regular files reached through folders only.
 * Synchronous on purpose: it runs before and after every command and makes hundreds of tiny
 * lstat and readdir calls on a large work tree, each far cheaper inline than as a round trip
 * through libuv's thread pool (about 120 ms a command async over 200 module folders, 2 ms inline).
 */
function candidates(
  root: string,
  named: readonly string[],
  limits: ReportFileLimits,
  refused: string[] = []
): Map<string, BigIntStats> {
  const found = new Map<string, BigIntStats>()
  const add = (path: string) => {
    const stats = plainPath(root, path)
    if (stats === 'missing') return
    if (typeof stats === 'string') refused.push(`${path}: ${stats}`)
    else if (stats.isFile()) found.set(path, stats)
  }
  for (const path of named) add(path)
  for (const module of moduleDirs(root, limits.maxDirs)) {
    // A module folder is a real folder (listed, never a link): only what is below it is looked at,
    // `target` or `build` first, as most modules have neither.
    const outputs = new Map<string, boolean>()
    for (const [output, reports] of REPORT_DIRS) {
      const base = module ? `${module}/${output}` : output
      if (!outputs.has(output)) outputs.set(output, isPlainFolder(root, base))
      const dir = `${base}/${reports}`
      if (!outputs.get(output) || !isPlainFolder(root, dir)) continue
      for (const path of reportFilesUnder(root, dir, REPORT_DEPTH, limits.maxFiles * 2)) add(path)
    }
  }
  return found
}

/** The work tree and the folders up to MODULE_DEPTH below it (no dot folders, no links). */
function moduleDirs(root: string, maxDirs: number): string[] {
  const dirs = ['']
  for (let i = 0; i < dirs.length && dirs.length < maxDirs; i++) {
    const dir = dirs[i]!
    if (dir && dir.split('/').length >= MODULE_DEPTH) continue
    for (const entry of listDir(join(root, dir))) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name))
        continue
      if (dirs.length >= maxDirs) break
      dirs.push(dir ? `${dir}/${entry.name}` : entry.name)
    }
  }
  return dirs
}

function reportFilesUnder(root: string, dir: string, depth: number, cap: number): string[] {
  const files: string[] = []
  const walk = (rel: string, left: number) => {
    for (const entry of listDir(join(root, rel))) {
      if (files.length >= cap) return
      const path = `${rel}/${entry.name}`
      // Dirent types come from lstat: a link is neither a file nor a folder here.
      if (entry.isFile() && REPORT_NAME.test(entry.name)) files.push(path)
      else if (entry.isDirectory() && left > 0) walk(path, left - 1)
    }
  }
  walk(dir, depth)
  return files.sort()
}

function listDir(path: string) {
  try {
    return readdirSync(path, { withFileTypes: true })
  } catch {
    return []
  }
}

/** Whether the path, in a folder known to be plain, is a folder itself and not a link. */
function isPlainFolder(root: string, path: string): boolean {
  try {
    return lstatSync(join(root, path), { throwIfNoEntry: false })?.isDirectory() ?? false
  } catch {
    return false
  }
}

/** The path's lstat when every part of it is a folder and the last a regular file or folder; else why not. */
function plainPath(root: string, path: string): BigIntStats | string {
  const parts = path.split('/')
  let stats: BigIntStats | undefined
  for (let i = 1; i <= parts.length; i++) {
    try {
      stats = lstatSync(join(root, ...parts.slice(0, i)), { bigint: true, throwIfNoEntry: false })
    } catch {
      stats = undefined
    }
    if (!stats) return 'missing'
    if (stats.isSymbolicLink()) return 'a symbolic link'
    if (i < parts.length && !stats.isDirectory()) return 'not a folder on the way'
  }
  return stats!.isFile() || stats!.isDirectory() ? stats! : 'not a regular file'
}

/** The file's text, opened without following a link and checked to be the file looked at, inside the work tree. */
async function readInside(
  root: string,
  path: string,
  seen: BigIntStats
): Promise<string | { refused: string }> {
  try {
    const [realRoot, real] = await Promise.all([realpath(root), realpath(join(root, path))])
    if (!real.startsWith(realRoot + sep)) return { refused: 'outside the work tree' }
    const handle = await open(
      real,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
    )
    try {
      const now = await handle.stat({ bigint: true })
      if (!now.isFile() || now.ino !== seen.ino || now.dev !== seen.dev)
        return { refused: 'changed while read' }
      const buffer = Buffer.alloc(Number(seen.size))
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
      return buffer.subarray(0, bytesRead).toString('utf8')
    } finally {
      await handle.close()
    }
  } catch (error) {
    return { refused: `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})` }
  }
}

/** What changes whenever a file is written: a rewrite changes ctime even when mtime is set back. */
function signature(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
}
