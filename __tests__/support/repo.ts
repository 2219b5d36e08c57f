/**
 * Temporary git repositories for tests and the demo: a work tree whose `origin` remote is a local
 * bare repository, so pushes can be checked without any network.
 */
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

export interface TestRepo {
  /** The temp folder holding both repositories. */
  root: string
  /** The work tree. */
  dir: string
  /** The bare repository the work tree pushes to as `origin`. */
  origin: string
  /** Runs git in the work tree; returns stdout without trailing whitespace, throws with stderr. */
  git(...args: string[]): string
  /** Runs git in the bare origin. */
  gitOrigin(...args: string[]): string
  read(path: string): string
  /** Writes a file in the work tree, creating folders as needed. */
  write(path: string, content: string): void
  /** Stages everything and commits; returns the new commit's SHA. */
  commitAll(message: string): string
  cleanup(): void
}

export interface RepoOptions {
  /** Relative POSIX paths to contents; folders are created. */
  files: Record<string, string>
  /** Default 'main'. */
  branch?: string
  /** Part of the temp folder's name: `<tmpdir>/patchsmith-<prefix>-XXXXXX`. Default 'repo'. */
  prefix?: string
  /** The folder the temp folder is made in, default the temp folder (the suite's own disk). */
  parent?: string
}

export function createRepo(options: RepoOptions): TestRepo {
  const branch = options.branch ?? 'main'
  const root = mkdtempSync(
    join(options.parent ?? tmpdir(), `patchsmith-${options.prefix ?? 'repo'}-`)
  )
  const dir = join(root, 'work')
  const origin = join(root, 'origin.git')

  const repo: TestRepo = {
    root,
    dir,
    origin,
    git: (...args) => runGit(dir, args),
    gitOrigin: (...args) => runGit(origin, args),
    read: (path) => readFileSync(join(dir, path), 'utf8'),
    write(path, content) {
      const file = join(dir, path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, content)
    },
    commitAll(message) {
      repo.git('add', '--all')
      repo.git('commit', '--quiet', '-m', message)
      return repo.git('rev-parse', 'HEAD')
    },
    cleanup: () => rmSync(root, { recursive: true, force: true })
  }

  try {
    initFromTemplate(repo, branch)
    writeConfig(repo, branch)
    for (const [path, content] of Object.entries(options.files)) repo.write(path, content)
    repo.git('add', '--all')
    repo.git(...QUIET, 'commit', '--quiet', '--allow-empty', '-m', 'initial')
    seedOrigin(repo, branch)
  } catch (error) {
    repo.cleanup()
    throw error
  }
  return repo
}

// No automatic gc or maintenance after the setup's own commit (or a clone's).
const QUIET = ['-c', 'maintenance.auto=false', '-c', 'gc.auto=0', '-c', 'receive.autogc=false']

/**
 * What `git init --bare` and `git init` leave, copied from the pair this process made once: each
 * git process is forked from a test worker of a few hundred MB (page tables copied, then torn
 * down), and a suite makes about a thousand repositories. HEAD names the branch, as `-b` would.
 */
function initFromTemplate(repo: TestRepo, branch: string): void {
  // Made again where a test's own disk that held it is gone (it made it there, by TMPDIR).
  if (!template || !existsSync(template.bare)) template = makeTemplate()
  cpSync(template.bare, repo.origin, { recursive: true })
  cpSync(template.git, join(repo.dir, '.git'), { recursive: true })
  for (const gitDir of [repo.origin, join(repo.dir, '.git')])
    writeFileSync(join(gitDir, 'HEAD'), `ref: refs/heads/${branch}\n`)
}

let template: { bare: string; git: string } | undefined

function makeTemplate(): { bare: string; git: string } {
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-repo-template-'))
  process.once('exit', () => rmSync(root, { recursive: true, force: true }))
  const bare = join(root, 'origin.git')
  runGit(root, ['init', '--quiet', '--bare', bare])
  runGit(root, ['init', '--quiet', join(root, 'work')])
  const git = join(root, 'work', '.git')
  // The 13 sample hooks are inert and make up most of what is copied (about 26 000 files a suite).
  for (const hooks of [join(bare, 'hooks'), join(git, 'hooks')])
    for (const name of readdirSync(hooks)) if (name.endsWith('.sample')) rmSync(join(hooks, name))
  return { bare, git }
}

/**
 * What `git push origin <branch>` of the first commit leaves, written as files (a push is five
 * processes): the work tree's loose objects copied into the bare origin, the branch there, and
 * the work tree's remote-tracking ref with the reflog entry a push writes.
 */
function seedOrigin(repo: TestRepo, branch: string): void {
  const git = join(repo.dir, '.git')
  const sha = readFileSync(join(git, 'refs', 'heads', branch), 'utf8').trim()
  if (!/^[0-9a-f]{40}$/.test(sha)) throw new Error(`createRepo: no commit on ${branch}: ${sha}`)
  cpSync(join(git, 'objects'), join(repo.origin, 'objects'), { recursive: true })
  const when = `${Math.floor(Date.now() / 1000)} +0000`
  const entry = `${'0'.repeat(40)} ${sha} Patchsmith Test <patchsmith-test@example.invalid> ${when}\tupdate by push\n`
  for (const [file, content] of [
    [join(repo.origin, 'refs', 'heads', branch), `${sha}\n`],
    [join(git, 'refs', 'remotes', 'origin', branch), `${sha}\n`],
    [join(git, 'logs', 'refs', 'remotes', 'origin', branch), entry]
  ] as const) {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
}

/**
 * The work tree's config: a fresh identity (a fresh CI machine may have none) and no signing or
 * CRLF conversion from the developer's global config, origin and the branch's upstream. Written
 * as the bytes `git config` and `git push --set-upstream` would leave, without their 7 processes.
 */
function writeConfig(repo: TestRepo, branch: string): void {
  const file = join(repo.dir, '.git', 'config')
  const initial = readFileSync(file, 'utf8')
  if (!/^\[core\]\n(\t[a-z]+ = [a-z0-9]+\n)+$/.test(initial))
    throw new Error(`createRepo: unexpected config from git init:\n${initial}`)
  const lines = [
    '\tautocrlf = false',
    '[user]',
    '\tname = Patchsmith Test',
    '\temail = patchsmith-test@example.invalid',
    '[commit]',
    '\tgpgsign = false',
    '[tag]',
    '\tgpgsign = false',
    '[remote "origin"]',
    `\turl = ${repo.origin}`,
    '\tfetch = +refs/heads/*:refs/remotes/origin/*',
    `[branch "${branch}"]`,
    '\tremote = origin',
    `\tmerge = refs/heads/${branch}`
  ]
  writeFileSync(file, `${initial}${lines.join('\n')}\n`)
}

/**
 * Another work tree of the same origin (`<root>/<name>`), as a second runner's checkout would
 * be: cloned, with createRepo's identity and no signing. Returns its folder.
 */
export function cloneWorkTree(repo: TestRepo, name: string): string {
  const dir = join(repo.root, name)
  runGit(repo.root, [...QUIET, 'clone', '--quiet', repo.origin, dir])
  for (const [key, value] of [
    ['core.autocrlf', 'false'],
    ['user.name', 'Patchsmith Test'],
    ['user.email', 'patchsmith-test@example.invalid'],
    ['commit.gpgsign', 'false']
  ])
    runGit(dir, ['config', key!, value!])
  return dir
}

/** Reads every file under `dir` (recursively, skipping `.git`) keyed by relative POSIX path. */
export function copyDirFiles(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  const walk = (relative: string): void => {
    const entries = readdirSync(join(dir, relative), { withFileTypes: true })
    entries.sort((a, b) => a.name.localeCompare(b.name))
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (entry.name !== '.git') walk(path)
      } else if (entry.isFile()) {
        files[path] = readFileSync(join(dir, path), 'utf8')
      }
    }
  }
  walk('')
  return files
}

function runGit(cwd: string, args: string[]): string {
  try {
    const stdout = execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: gitEnv()
    })
    // Only trailing whitespace: a leading space is meaningful (e.g. ' M file' in --porcelain).
    return stdout.trimEnd()
  } catch (error) {
    const { status, stderr } = error as { status?: number | null; stderr?: string }
    throw new Error(
      `git ${args.join(' ')} failed (exit ${status ?? '?'}) in ${cwd}:\n${stderr?.trim() || String(error)}`
    )
  }
}

/**
 * The parent's environment without the variables that point git at another repository: they are
 * set when tests run from a git hook, and would make every command here act on that repository.
 */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' }
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR']) {
    delete env[name]
  }
  return env
}
