import {
  closeSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  statSync
} from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { PatchsmithError } from '../contract/index.js'
import { processStartTime } from '../sandbox/index.js'

/**
 * git opens every .gitattributes and .gitignore it meets, and opening a fifo waits for a writer
 * forever: the run would hang with the index lock held until the job is killed. What validation
 * leaves is removed before git looks (policy/special-files.ts); this is the backstop for any
 * other fifo (one there before the run, one planted where no listing looks). While a git
 * command of this process runs, its git processes are looked at once a second; one found
 * blocked on a fifo twice in a row is killed, and the command fails with ENVIRONMENT_ERROR
 * naming the fifo. Blocked is waiting to open it (the kernel's `wait_for_partner`: nothing at
 * the other end), or waiting to read it (a process holds it open and writes nothing). By hand:
 * no library reads /proc for this.
 */
const LOOK_EVERY_MS = 1000
const WAITING_TO_OPEN = 'wait_for_partner'
/** A read waiting on a pipe or fifo: the name differs between kernels (6.x: anon_pipe_read). */
const WAITING_TO_READ = new Set(['pipe_read', 'anon_pipe_read', 'fifo_pipe_read'])
/** Devices a git program may hold open for itself (a TLS library's randomness, a push's). */
const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/urandom', '/dev/random'])
/** read(2), readv(2), pread64(2) by architecture: the descriptor is the first argument. */
const READ_CALLS: Partial<Record<string, readonly string[]>> = {
  x64: ['0', '19', '17'],
  arm64: ['63', '65', '67']
}

interface Ticket {
  blocked: string[]
}

const open = new Set<Ticket>()
let timer: NodeJS.Timeout | undefined
/** The processes seen waiting at the last look, by pid and start time. */
let waiting = new Set<string>()

/** Runs `command` under the watch; a fifo that blocked one of its git processes fails it. */
export async function watchedForFifos<T>(command: () => Promise<T>): Promise<T> {
  const ticket: Ticket = { blocked: [] }
  open.add(ticket)
  timer ??= setInterval(lookSafely, LOOK_EVERY_MS).unref()
  try {
    const result = await command()
    if (ticket.blocked.length > 0) throw fifoError(ticket.blocked)
    return result
  } catch (error) {
    if (ticket.blocked.length > 0) throw fifoError(ticket.blocked)
    throw error
  } finally {
    open.delete(ticket)
    if (open.size === 0) {
      clearInterval(timer)
      timer = undefined
      waiting = new Set()
    }
  }
}

function fifoError(blocked: readonly string[]): PatchsmithError {
  const path = blocked[0]!
  return new PatchsmithError(
    'ENVIRONMENT_ERROR',
    `git waited on a named pipe (fifo)${path ? ` at ${path}` : ''} that nothing writes to, so it was stopped; git opens every .gitattributes and .gitignore it meets. Remove the fifo (\`find . -type p\` in the repository lists them) and run again.`,
    { rule: 'git-fifo', path }
  )
}

/** A look that fails (a process gone mid-read) sees nothing; it never ends the run. */
function lookSafely(): void {
  try {
    look()
  } catch {
    waiting = new Set()
  }
}

function look(): void {
  const now = new Set<string>()
  for (const pid of descendants(process.pid)) {
    // git and the programs it starts for itself (git-upload-pack for a local remote, …).
    if (!/^git(-|$)/.test(readText(`/proc/${pid}/comm`)?.trim() ?? '')) continue
    const blocked = blockedOnFifo(pid)
    if (blocked === undefined) continue
    const key = `${pid}:${processStartTime(pid)}`
    now.add(key)
    if (!waiting.has(key)) continue
    const path = blocked() ?? ''
    const locks = lockFilesHeld(pid)
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      continue
    }
    // Its lock files (index.lock, a ref's) would stop every later git command of the run and
    // the user's: they are this git's, held open by it, and it is gone.
    for (const lock of locks)
      try {
        rmSync(lock, { force: true })
      } catch {
        // gone, or not a file: the fifo is still named
      }
    for (const ticket of open) ticket.blocked.push(path)
  }
  waiting = now
}

/**
 * Every process below `pid` (/proc/<pid>/task/<tid>/children) in this PID namespace: what runs
 * in a jail (validation's own git, hooks) is the command's, not the run's.
 */
function descendants(pid: number): number[] {
  const own = namespaceOf('self')
  const found: number[] = []
  const queue = [pid]
  while (own !== undefined && queue.length > 0) {
    const parent = queue.shift()!
    let tasks: string[]
    try {
      tasks = readdirSync(`/proc/${parent}/task`)
    } catch {
      continue
    }
    for (const task of tasks) {
      const children = readText(`/proc/${parent}/task/${task}/children`) ?? ''
      for (const child of children.split(' ').filter(Boolean)) {
        if (namespaceOf(child) !== own) continue
        found.push(Number(child))
        queue.push(Number(child))
      }
    }
  }
  return found
}

/**
 * Where a thread of `pid` is blocked on a fifo: a function giving the fifo's path (read only
 * when the process is stopped), or undefined when none is. A read blocked on git's own pipes
 * (its input, a pipe to a helper) is not: only a descriptor that is a named fifo counts.
 */
function blockedOnFifo(pid: number): (() => string | undefined) | undefined {
  let tasks: string[]
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return undefined
  }
  for (const task of tasks) {
    const wchan = readText(`/proc/${pid}/task/${task}/wchan`) ?? ''
    if (wchan === WAITING_TO_OPEN) return () => openedPath(pid, task)
    if (!WAITING_TO_READ.has(wchan)) continue
    const path = fifoBeingRead(pid, task)
    if (path !== undefined) return () => path
  }
  const held = heldSpecialFile(pid)
  return held === undefined ? undefined : () => held
}

/**
 * The lock files `pid` holds open for writing in a git folder (git writes a lock through its
 * descriptor): index.lock, a ref's, config.lock. Not a file of the work tree that git reads or
 * checks out (a tracked `Gemfile.lock`): only a `*.lock` in a folder under one holding HEAD.
 */
function lockFilesHeld(pid: number): string[] {
  return openFiles(pid).flatMap(({ descriptor, target }) => {
    if (!target.startsWith('/') || !target.endsWith('.lock') || !inGitFolder(target)) return []
    // fdinfo's flags, in octal: the access mode is the lowest digit (1 write, 2 read-write).
    const flags = /^flags:\s*([0-7]+)$/m.exec(readText(`/proc/${pid}/fdinfo/${descriptor}`) ?? '')
    return flags && [1, 2].includes(Number.parseInt(flags[1]!, 8) & 3) ? [target] : []
  })
}

function inGitFolder(path: string): boolean {
  for (let folder = dirname(path), depth = 0; depth < 8 && folder !== '/'; depth++) {
    if (isFile(join(folder, 'HEAD')) && isFolder(join(folder, 'objects'))) return true
    folder = dirname(folder)
  }
  return false
}

/** What `pid` has open, by descriptor: a path, or `pipe:[…]`, `socket:[…]` and the like. */
function openFiles(pid: number): Array<{ descriptor: string; target: string }> {
  let descriptors: string[]
  try {
    descriptors = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }
  return descriptors.flatMap((descriptor) => {
    try {
      return [{ descriptor, target: readlinkSync(`/proc/${pid}/fd/${descriptor}`) }]
    } catch {
      return []
    }
  })
}

/**
 * A named fifo or a device (but HARMLESS_DEVICES) that `pid` has open: one fed without end keeps
 * git reading, never blocked. Its pipes to this process (`pipe:[…]`) never count.
 */
function heldSpecialFile(pid: number): string | undefined {
  for (const { descriptor, target } of openFiles(pid)) {
    if (!target.startsWith('/') || HARMLESS_DEVICES.has(target)) continue
    try {
      const stat = statSync(`/proc/${pid}/fd/${descriptor}`)
      if (stat.isFIFO() || stat.isCharacterDevice() || stat.isBlockDevice()) return target
    } catch {
      // closed meanwhile
    }
  }
  return undefined
}

/** The named fifo a read of this thread waits on, by its descriptor; undefined for a pipe. */
function fifoBeingRead(pid: number, task: string): string | undefined {
  const call = readText(`/proc/${pid}/task/${task}/syscall`)?.split(' ')
  if (!call || call.length < 2 || !READ_CALLS[process.arch]?.includes(call[0]!)) return undefined
  const descriptor = `/proc/${pid}/fd/${Number(BigInt(call[1]!))}`
  try {
    const target = readlinkSync(descriptor)
    // An anonymous pipe's link reads `pipe:[inode]`; a named fifo's is its path.
    return target.startsWith('/') && statSync(descriptor).isFIFO() ? target : undefined
  } catch {
    return undefined
  }
}

/**
 * The path the waiting open(2)/openat(2) was given, read from the process's memory (it is this
 * process's descendant, so this user may read it); relative paths resolved against its working
 * folder or the folder descriptor. Undefined where it cannot be read.
 */
function openedPath(pid: number, task: string): string | undefined {
  const call = readText(`/proc/${pid}/task/${task}/syscall`)?.split(' ')
  if (!call || call.length < 3) return undefined
  // openat(dirfd, path, …) and openat2; open(path, …) only on x86-64.
  const openat = (process.arch === 'arm64' ? ['56', '437'] : ['257', '437']).includes(call[0]!)
  if (!openat && !(process.arch === 'x64' && call[0] === '2')) return undefined
  const first = BigInt.asIntN(32, BigInt(call[1]!))
  const address = Number(BigInt(call[openat ? 2 : 1]!))
  const path = readString(pid, address)
  if (path === undefined || isAbsolute(path)) return path
  const folder = openat && first !== -100n ? `fd/${first}` : 'cwd'
  try {
    return join(readlinkSync(`/proc/${pid}/${folder}`), path)
  } catch {
    return path
  }
}

function readString(pid: number, address: number): string | undefined {
  if (!Number.isSafeInteger(address) || address <= 0) return undefined
  let fd: number | undefined
  try {
    fd = openSync(`/proc/${pid}/mem`, 'r')
    const buffer = Buffer.alloc(4096)
    const read = readSync(fd, buffer, 0, buffer.length, address)
    const end = buffer.subarray(0, read).indexOf(0)
    return end > 0 ? buffer.subarray(0, end).toString('utf8') : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function namespaceOf(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`)
  } catch {
    return undefined
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

function isFile(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isFile() ?? false
}

function isFolder(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false
}
