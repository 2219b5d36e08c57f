import type { DiffHunk, DiffLine, FileDiff } from './diff-model.js'
import type { Random } from './random.js'

/**
 * The ways models damage a diff, as the shared corpora (`click.jsonl`, `ky.jsonl`) were made.
 * Each mutation changes the parsed diff in place; `crlf` and the wrappers act on the text.
 */
export interface Mutation {
  label: string
  applies(diff: readonly FileDiff[], single: boolean): boolean
  apply(diff: FileDiff[], random: Random, before: Record<string, string>): void
}

const allHunks = (diff: readonly FileDiff[]) => diff.flatMap((file) => file.hunks)
const allLines = (diff: readonly FileDiff[]) => allHunks(diff).flatMap((hunk) => hunk.lines)

/** Lines from other projects in other languages: a removal no file of the case holds. */
const FOREIGN_LINES = [
  'if (!options.retryOnTimeout) throw new TimeoutError(request);',
  'err = validateConfig(cfg); if err != nil { return err }',
  'return normalize_result(value, strict=True)',
  "const legacyHandler = require('./legacy');"
]

const indentOf = (text: string) => /^[ \t]*/.exec(text)![0]

/** Leading tabs written as four spaces each, or four spaces as a tab. */
function drifted(text: string): string {
  const indent = indentOf(text)
  if (indent.startsWith('\t')) return indent.replace(/\t/g, '    ') + text.slice(indent.length)
  const spaces = /^ */.exec(text)![0].length
  if (spaces < 4) return text
  return '\t'.repeat(Math.floor(spaces / 4)) + text.slice(Math.floor(spaces / 4) * 4)
}

function edgeContext(hunk: DiffHunk, fromEnd: boolean): number {
  const lines = fromEnd ? [...hunk.lines].reverse() : hunk.lines
  let n = 0
  for (const line of lines) {
    if (line.kind === '\\' && fromEnd) continue
    if (line.kind !== ' ') break
    n++
  }
  return n
}

function dropEdge(hunk: DiffHunk, count: number, fromEnd: boolean): void {
  for (let i = 0; i < count; i++) {
    if (!fromEnd) {
      hunk.lines.shift()
      hunk.trueOldStart++
      continue
    }
    let at = hunk.lines.length - 1
    while (hunk.lines[at]!.kind === '\\') at--
    hunk.lines.splice(at, 1)
  }
}

const typoable = (line: DiffLine) => line.kind === ' ' && /[A-Za-wyz]/.test(line.text)

export const MUTATIONS: readonly Mutation[] = [
  {
    label: 'no-git-header',
    applies: (diff) => diff.some((file) => file.gitHeaderKept),
    apply: (diff) => diff.forEach((file) => (file.gitHeaderKept = false))
  },
  {
    label: 'no-ab-prefix',
    applies: (diff) => diff.some((file) => file.prefixed),
    apply: (diff) => diff.forEach((file) => (file.prefixed = false))
  },
  {
    // A path from memory: the folder left out, or one made up in front.
    label: 'wrong-path',
    applies: (diff, single) => single && diff.length === 1,
    apply: (diff) => {
      const file = diff[0]!
      const slash = file.path.lastIndexOf('/')
      file.name = slash >= 0 ? file.path.slice(slash + 1) : `src/${file.path}`
      file.gitHeaderKept = false
    }
  },
  {
    label: 'bare-hunk-header',
    applies: () => true,
    apply: (diff, random) =>
      allHunks(diff).forEach((hunk) => (hunk.bare = random.pick(['@@', '@@ @@', '@@ ... @@'])))
  },
  {
    label: 'bad-counts',
    applies: () => true,
    apply: (diff, random) => {
      for (const hunk of allHunks(diff)) {
        const wrong = (count: number) => Math.max(1, count + random.pick([-3, -2, -1, 1, 2, 3]))
        hunk.oldCount = wrong(hunk.oldCount)
        hunk.newCount = wrong(hunk.newCount)
        hunk.header = null
      }
    }
  },
  {
    label: 'line-offset',
    applies: () => true,
    apply: (diff, random) => {
      for (const hunk of allHunks(diff)) {
        const offset = (3 + random.int(18)) * (random.chance(0.5) ? 1 : -1)
        const moved = Math.max(1, hunk.oldStart + offset)
        hunk.newStart = Math.max(1, hunk.newStart + (moved - hunk.oldStart))
        hunk.oldStart = moved
        hunk.header = null
      }
    }
  },
  {
    label: 'drop-context',
    applies: (diff) => allHunks(diff).some((h) => edgeContext(h, false) + edgeContext(h, true) > 0),
    apply: (diff, random) => {
      for (const hunk of allHunks(diff)) {
        const k = 1 + random.int(2)
        dropEdge(hunk, Math.min(k, edgeContext(hunk, false)), false)
        dropEdge(hunk, Math.min(k, edgeContext(hunk, true)), true)
      }
    }
  },
  {
    label: 'typo-in-context',
    applies: (diff) => allLines(diff).some(typoable),
    apply: (diff, random) => {
      const line = random.pick(allLines(diff).filter(typoable))
      const spots = [...line.text].flatMap((c, i) => (/[A-Za-wyz]/.test(c) ? [i] : []))
      const at = random.pick(spots)
      line.text = `${line.text.slice(0, at)}x${line.text.slice(at + 1)}`
      line.damaged = true
    }
  },
  {
    label: 'indent-drift',
    applies: (diff) =>
      allLines(diff).some((l) => l.kind !== '+' && l.kind !== '\\' && drifted(l.text) !== l.text),
    apply: (diff, random) => {
      const candidates = allLines(diff).filter(
        (l) => l.kind !== '+' && l.kind !== '\\' && drifted(l.text) !== l.text
      )
      const chosen = candidates.filter(() => random.chance(0.5))
      for (const line of chosen.length > 0 ? chosen : [random.pick(candidates)]) {
        line.text = drifted(line.text)
        line.drifted = true
      }
    }
  },
  {
    label: 'blank-context-no-space',
    applies: (diff) => allLines(diff).some((l) => l.kind === ' ' && l.text === ''),
    apply: (diff) =>
      allLines(diff).forEach((l) => {
        if (l.kind === ' ' && l.text === '') l.noSpace = true
      })
  },
  {
    label: 'hallucinated-removal',
    applies: (diff) => allLines(diff).some((l) => l.kind === '-'),
    apply: (diff, random, before) => {
      const line = random.pick(allLines(diff).filter((l) => l.kind === '-'))
      const known = new Set(
        Object.values(before).flatMap((content) => content.split('\n').map((l) => l.trim()))
      )
      const foreign = random.pick(FOREIGN_LINES.filter((l) => !known.has(l)))
      line.text = indentOf(line.text) + foreign
      line.hallucinated = true
    }
  },
  {
    label: 'reorder-hunks',
    applies: (diff) => diff.some((file) => file.hunks.length > 1),
    apply: (diff, random) => {
      const file = random.pick(diff.filter((f) => f.hunks.length > 1))
      file.hunks.push(file.hunks.shift()!)
    }
  },
  // Applied to the text when the diff is written.
  { label: 'crlf', applies: () => true, apply: () => {} }
]

const INTROS = [
  "I'll update the file as requested.",
  'Here is the minimal change that fixes the issue:',
  'Sure! Below is the unified diff.'
]
const OUTROS = [
  'The change is minimal and preserves formatting.',
  'This keeps the existing behaviour for all other callers.',
  'Let me know if you want tests for this change.'
]

/** The reply around the diff: a fenced block between prose, or tool-call tags. */
export function wrap(text: string, wrapper: 'fence' | 'tool-call' | null, random: Random): string {
  if (wrapper === 'tool-call') return `<tool_call>\n${text}</tool_call>\n`
  if (wrapper === 'fence')
    return `${random.pick(INTROS)}\n\n\`\`\`diff\n${text}\`\`\`\n\n${random.pick(OUTROS)}\n`
  return text
}
