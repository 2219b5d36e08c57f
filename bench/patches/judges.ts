import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, join } from 'node:path'
import { syntaxGate } from '../../src/edits/syntax/index.js'

type Files = Record<string, string | null>

/** Whether an applier's result breaks a file that parsed before, in tree-sitter's judgement. */
export async function brokenByGate(before: Files, after: Files): Promise<boolean> {
  for (const [path, content] of Object.entries(after)) {
    if (content === null || content === (before[path] ?? null)) continue
    if (await syntaxGate().introducedError(path, before[path] ?? null, content)) return true
  }
  return false
}

/**
 * The same question put to the language's own parser, outside Patchsmith: Python's `ast`, Node's
 * `--check`, `JSON.parse`. Undefined when no changed file has such a parser here.
 */
export function brokenByOwnParser(before: Files, after: Files): boolean | undefined {
  let judged: boolean | undefined
  for (const [path, content] of Object.entries(after)) {
    const old = before[path] ?? null
    if (content === null || content === old) continue
    const parses = ownParser(path)
    if (!parses) continue
    judged ??= false
    if ((old === null || parses(old)) && !parses(content)) judged = true
  }
  return judged
}

function ownParser(path: string): ((source: string) => boolean) | undefined {
  switch (extname(path)) {
    case '.py':
      return (source) =>
        run('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], source)
    case '.js':
    case '.mjs':
    case '.cjs':
      return (source) =>
        inFile(`x${extname(path)}`, source, (file) => run('node', ['--check', file]))
    case '.json':
      return (source) => {
        try {
          JSON.parse(source)
          return true
        } catch {
          return false
        }
      }
    default:
      return undefined
  }
}

function run(command: string, args: string[], input?: string): boolean {
  const result = spawnSync(command, args, { input, encoding: 'utf8' })
  if (result.error) throw new Error(`${command} is needed to judge ${args.join(' ')}`)
  return result.status === 0
}

function inFile<T>(name: string, source: string, use: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-judge-'))
  try {
    writeFileSync(join(dir, name), source)
    return use(join(dir, name))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
