/**
 * Builds a corpus of raw small-model replies to real tasks (no `expected`: bench:patches judges
 * what lands by re-parsing it): `tsx bench/corpus/small-models.ts --preds FILE.jsonl [--preds ...]
 * --repo OWNER/NAME=GIT_DIR [--repo ...] [--exclude CORPUS.jsonl] --out FILE.jsonl[.gz]`.
 *
 * `--preds` are SWE-bench inference outputs (`swebench.inference.run_llama`: one JSON object a line
 * with `instance_id`, `full_output`, `model_patch`, `model_name_or_path`). Each reply becomes one
 * case with its `full_output` as the patch, untouched, and the files it names as they were at the
 * instance's base commit. The base commit is found in the project's own history from the pull
 * request number in the instance id: the parent of a squash-merged "... (#N)" commit, or the fork
 * point of a "Merge pull request #N" commit. Replies whose instance has neither, that name no file,
 * or that name a file the base commit lacks are left out, as are replies already in `--exclude`
 * (same instance, same `model_patch`) and repeats of a reply already taken.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { gzipSync } from 'node:zlib'

interface Prediction {
  instance_id: string
  full_output: string
  model_patch: string
  model_name_or_path: string
}

function options(name: string): string[] {
  const values: string[] = []
  process.argv.forEach((arg, i) => {
    if (arg === `--${name}` && process.argv[i + 1] !== undefined) values.push(process.argv[i + 1]!)
  })
  return values
}

const predsFiles = options('preds')
const repoDirs = new Map(options('repo').map((spec) => spec.split('=', 2) as [string, string]))
const exclude = options('exclude')
const out = options('out')[0]
if (predsFiles.length === 0 || repoDirs.size === 0 || out === undefined) {
  console.error(
    'usage: tsx bench/corpus/small-models.ts --preds FILE.jsonl ... --repo OWNER/NAME=GIT_DIR ... [--exclude CORPUS.jsonl] --out FILE.jsonl[.gz]'
  )
  process.exit(2)
}

function git(gitDir: string, args: string[]): string | undefined {
  const run = spawnSync('git', ['--git-dir', gitDir, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024
  })
  return run.status === 0 ? run.stdout : undefined
}

/** Commit subjects with parents, first-parent history first (the merges of the main line). */
const historyCache = new Map<string, { parents: string[]; subject: string }[]>()
function history(gitDir: string) {
  let commits = historyCache.get(gitDir)
  if (commits === undefined) {
    const read = (extra: string[]) =>
      (git(gitDir, ['log', ...extra, '--format=%P%x09%s', 'HEAD']) ?? '')
        .split('\n')
        .filter((line) => line.includes('\t'))
        .map((line) => {
          const [parents, subject] = line.split('\t', 2) as [string, string]
          return { parents: parents.split(' ').filter(Boolean), subject }
        })
    commits = [...read(['--first-parent']), ...read([])]
    historyCache.set(gitDir, commits)
  }
  return commits
}

function baseCommit(gitDir: string, pull: number): string | undefined {
  const merge = new RegExp(`^Merge pull request #${pull} `)
  const squash = new RegExp(`\\(#${pull}\\)\\s*$`)
  for (const { parents, subject } of history(gitDir)) {
    if (parents.length === 2 && merge.test(subject)) {
      return git(gitDir, ['merge-base', parents[0]!, parents[1]!])?.trim()
    }
    if (parents.length === 1 && squash.test(subject)) return parents[0]
  }
  return undefined
}

/** The files a reply's diff headers name (a/ and b/ sides), /dev/null left out. */
function pathsNamed(reply: string): string[] {
  const paths = new Set<string>()
  for (const match of reply.matchAll(/^(?:--- a\/|\+\+\+ b\/)(\S+)/gm)) paths.add(match[1]!)
  return [...paths].sort()
}

function readJsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T)
}

const excluded = new Set<string>()
for (const path of exclude) {
  for (const row of readJsonLines<{ id: string; patch: string }>(path)) {
    excluded.add(`${row.id.replace(/^real-/, '')}\n${row.patch}`)
  }
}

const cases: string[] = []
const taken = new Set<string>()
const skipped = new Map<string, number>()
const skip = (why: string) => skipped.set(why, (skipped.get(why) ?? 0) + 1)
for (const file of predsFiles) {
  for (const pred of readJsonLines<Prediction>(file)) {
    const id = /^(.+?)__(.+)-(\d+)$/.exec(pred.instance_id)
    const gitDir = id ? repoDirs.get(`${id[1]}/${id[2]}`) : undefined
    if (!id || gitDir === undefined) continue
    if (excluded.has(`${pred.instance_id}\n${pred.model_patch}`)) {
      skip('in --exclude')
      continue
    }
    const key = `${pred.instance_id}\n${pred.full_output}`
    if (taken.has(key)) {
      skip('repeat')
      continue
    }
    const paths = pathsNamed(pred.full_output)
    if (paths.length === 0) {
      skip('names no file')
      continue
    }
    const base = baseCommit(gitDir, Number(id[3]))
    if (base === undefined) {
      skip('no base commit')
      continue
    }
    const files: Record<string, string> = {}
    for (const path of paths) {
      const content = git(gitDir, ['show', `${base}:${path}`])
      if (content !== undefined) files[path] = content
    }
    if (Object.keys(files).length !== paths.length) {
      skip('names a file the base lacks')
      continue
    }
    taken.add(key)
    const repeat = [...taken].filter((k) => k.startsWith(`${pred.instance_id}\n`)).length
    cases.push(
      JSON.stringify({
        id: `small-${pred.instance_id}${repeat > 1 ? `-${repeat}` : ''}`,
        source: `${pred.model_name_or_path} on ${pred.instance_id} at ${base} (${basename(file)})`,
        mutations: ['small-model'],
        files,
        target: null,
        patch: pred.full_output
      })
    )
  }
}

const text = cases.join('\n') + '\n'
writeFileSync(out, out.endsWith('.gz') ? gzipSync(text, { level: 9 }) : text)
console.log(
  `${out}: ${cases.length} cases; left out: ${JSON.stringify(Object.fromEntries(skipped))}`
)
