import { existsSync, realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { gitDirs } from './git-dirs.js'
import { MOST_CONFIG_BYTES, readRegularFile } from './regular-file.js'

const MAX_DEPTH = 10
const MAX_FILES = 100

/**
 * Every file the repository's config names through `include.path` or `includeIf.*.path`, its
 * conditions ignored (an `onbranch:` include turns on when a branch is checked out), followed
 * as deep as git follows them. Read from the files themselves, with no process, so the
 * integrity snapshot and the path policy can watch them: a tracked `.gitconfig` that the config
 * includes is config, and an edit of it can install a filter.
 */
export function configIncludes(repoDir: string): string[] {
  const dirs = gitDirs(repoDir)
  const roots = dirs.flatMap((dir) => [join(dir, 'config'), join(dir, 'config.worktree')])
  const found = new Set<string>()
  const visit = (file: string, depth: number) => {
    if (depth > MAX_DEPTH || found.size >= MAX_FILES) return
    for (const target of includeTargets(file)) {
      if (found.has(target)) continue
      found.add(target)
      visit(target, depth + 1)
    }
  }
  roots.forEach((file) => visit(file, 0))
  return [...found]
}

/**
 * The included files that lie inside the work tree, as repository paths (`.gitconfig`,
 * `config/git.cfg`): protected, since an edit of one is an edit of the repository's config.
 */
export function gitIncludedPaths(repoDir: string): string[] {
  const top = realOrSelf(resolve(repoDir))
  const paths = new Set<string>()
  for (const file of configIncludes(repoDir)) {
    for (const candidate of [resolve(file), realOrSelf(resolve(file))]) {
      const rel = relative(top, candidate)
      if (!rel || rel.startsWith('..') || isAbsolute(rel)) continue
      if (rel.split(sep)[0] === '.git') continue
      paths.add(rel.split(sep).join('/'))
    }
  }
  return [...paths].sort()
}

/** The `path` values of the include sections of one config file, resolved as git does. */
function includeTargets(file: string): string[] {
  const bytes = readRegularFile(file, MOST_CONFIG_BYTES)
  if (!Buffer.isBuffer(bytes)) return []
  const text = bytes.toString('utf8')
  const targets: string[] = []
  let inInclude = false
  for (const line of logicalLines(text)) {
    let rest = line.trimStart()
    if (rest.startsWith('[')) {
      const end = headerEnd(rest)
      const header = rest.slice(1, end).trim()
      inInclude = /^include(if\s*".*"|if\..*|)$/is.test(header)
      rest = rest.slice(end + 1).trimStart()
    }
    if (!inInclude) continue
    const match = /^path\s*(=\s*(.*))?$/is.exec(rest)
    if (!match || match[2] === undefined) continue
    const value = configValue(match[2])
    const target = resolveInclude(value, file)
    if (target) targets.push(target)
  }
  return targets
}

/** Where git looks for an included path: `~/` from HOME, a relative one beside the includer. */
function resolveInclude(value: string, from: string): string | undefined {
  if (!value || value.startsWith('%(prefix)/')) return undefined
  if (value === '~' || value.startsWith('~/'))
    return join(process.env.HOME || homedir(), value.slice(1))
  return isAbsolute(value) ? value : resolve(dirname(from), value)
}

/** Lines joined where one ends in a backslash outside a quote (git's continuation). */
function logicalLines(text: string): string[] {
  return text.replace(/\r\n/g, '\n').replace(/\\\n/g, '').split('\n')
}

/** The `]` that ends a section header, past a quoted subsection. */
function headerEnd(line: string): number {
  let quoted = false
  for (let i = 1; i < line.length; i++) {
    const char = line[i]
    if (char === '\\' && quoted) i++
    else if (char === '"') quoted = !quoted
    else if (char === ']' && !quoted) return i
  }
  return line.length
}

/** A value as git reads it: quotes removed, escapes decoded, comments and outer blanks dropped. */
function configValue(raw: string): string {
  let out = ''
  let quoted = false
  let pending = ''
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!
    if (!quoted && (char === '#' || char === ';')) break
    if (!quoted && /\s/.test(char)) {
      pending += char
      continue
    }
    if (out) out += pending
    pending = ''
    if (char === '"') quoted = !quoted
    else if (char === '\\') {
      const next = raw[++i] ?? ''
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next
    } else out += char
  }
  return out
}

function realOrSelf(path: string): string {
  try {
    return existsSync(path) ? realpathSync(path) : path
  } catch {
    return path
  }
}
