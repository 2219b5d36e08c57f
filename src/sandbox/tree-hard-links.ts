import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  constants,
  copyFileSync,
  lstatSync,
  renameSync,
  rmSync,
  utimesSync
} from 'node:fs'
import { basename, dirname, join } from 'node:path'

/** A file's device, inode and number of names (lstat's dev, ino, nlink). */
export interface FileIdentity {
  dev: number
  ino: number
  nlink: number
}

/**
 * Whether `file` is also a file under one of `folders` (its other name a hard link there): a
 * program on the host that is a hard link of a file of the tree is rewritten in place by
 * validation on the tree itself, and git would run the result (attack round 23). Only a file of
 * more than one name on a folder's device is searched for.
 */
export function hardLinkedInto(file: FileIdentity, folders: readonly string[]): boolean {
  if (file.nlink < 2) return false
  return folders.some((folder) => {
    const stat = lstatSync(folder, { throwIfNoEntry: false })
    if (!stat?.isDirectory() || stat.dev !== file.dev) return false
    const linked = multiLinked(folder, `${stat.dev}:${stat.ino}`)
    // A folder find could not search at all: any file of that device may be its.
    return linked === undefined || linked.has(`${file.dev}:${file.ino}`)
  })
}

/**
 * The files of the work tree that also have a name outside it: hard links a setup step made
 * (`ln`, `cp -l`), or pnpm's store. A command run on the tree itself rewrites such a file in
 * place, and so the file outside too: a program on the host's PATH that later steps (and git's
 * own ssh) run as the runner, or a store a cache carries to other workflows (attack round 24).
 * `.git` is left out: the jail shows it read-only.
 */
export function linkedOutside(tree: string): string[] {
  const names = new Map<string, { paths: string[]; links: number }>()
  for (const line of listMultiLinked(tree, ['-path', join(tree, '.git'), '-prune', '-o'])) {
    const [identity = '', links = '', ...path] = line.split(' ')
    const seen = names.get(identity) ?? { paths: [], links: Number(links) }
    seen.paths.push(path.join(' '))
    names.set(identity, seen)
  }
  return [...names.values()].flatMap((file) => (file.paths.length < file.links ? file.paths : []))
}

/**
 * Each file a copy of its own, in place of the shared one (same content, mode, owner and
 * times; a rename, so never half there): what a command then writes stays in the tree. The
 * first path that could not be separated, or undefined.
 */
export function separate(paths: readonly string[]): string | undefined {
  for (const path of paths) {
    const copy = join(dirname(path), `.patchsmith-copy-${process.pid}-${basename(path)}`)
    try {
      const stat = lstatSync(path)
      copyFileSync(path, copy, constants.COPYFILE_EXCL)
      chownSync(copy, stat.uid, stat.gid)
      chmodSync(copy, stat.mode & 0o7777)
      utimesSync(copy, stat.atime, stat.mtime)
      renameSync(copy, path)
    } catch {
      rmSync(copy, { force: true })
      return path
    }
  }
  return undefined
}

/**
 * The files of more than one name under each folder searched (by path and identity): once per
 * process, as a hard link into the tree comes from the host before the run, never from a
 * command in the jail (a link across mounts fails there, EXDEV; a commit cannot hold one).
 */
const searched = new Map<string, Set<string> | undefined>()

function multiLinked(folder: string, identity: string): Set<string> | undefined {
  const key = `${folder}\0${identity}`
  if (!searched.has(key)) {
    const found = safeList(folder)
    searched.set(key, found && new Set(found.map((line) => line.split(' ')[0]!)))
  }
  return searched.get(key)
}

function safeList(folder: string): string[] | undefined {
  try {
    return listMultiLinked(folder)
  } catch {
    return undefined
  }
}

/**
 * `device:inode links path` of each file under `folder` with more than one name, in the file
 * systems mounted there too. By hand because no library lists files by link count without a
 * stat of each in JS; find reads them in one process. A folder it cannot read (exit status 1)
 * is one this user's commands cannot write either: what it listed holds. Throws where find
 * could not run.
 */
function listMultiLinked(folder: string, prune: readonly string[] = []): string[] {
  let out: string
  try {
    out = execFileSync(
      'find',
      [folder, ...prune, '-type', 'f', '-links', '+1', '-printf', '%D:%i %n %p\\0'],
      {
        env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
        stdio: ['ignore', 'pipe', 'ignore'],
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024
      }
    )
  } catch (error) {
    const failed = error as { status?: number | null; stdout?: string }
    if (failed.status !== 1) throw error
    out = failed.stdout ?? ''
  }
  return out.split('\0').filter(Boolean)
}
