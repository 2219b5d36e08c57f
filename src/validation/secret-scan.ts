import { diffLines } from 'diff'
import type { SecretMasker } from './secret-masker.js'
import { findSecrets, SECRET_RULES } from './secret-patterns.js'

export interface ScannedEdit {
  path: string
  before: string | null
  after: string | null
}

export interface AddedLineFinding {
  path: string
  /** 1-based line in the new content. */
  line: number
  rule: 'secret-detected' | 'unicode'
  /** The secret rule, or the code point found (never the secret itself). */
  what: string
}

const COMMIT_RULES = SECRET_RULES.filter((rule) => rule.commit)
// Bidi controls (Trojan Source), invisible characters and Unicode tags ("ASCII smuggling").
// U+200D stays allowed: emoji sequences need it.
const HIDDEN_IN_CODE =
  /[\u202a-\u202e\u2066-\u2069\u200b\u200c\u200e\u200f\u2060-\u2064\u180e\ufeff]|[\u{e0000}-\u{e007f}]/u

/**
 * The lines an edit adds (all of a new file), scanned for secrets (pattern rules precise enough
 * to fail a commit, and the run's known values) and for bidi, invisible or tag characters.
 */
export function scanAddedLines(
  edits: readonly ScannedEdit[],
  masker?: SecretMasker
): AddedLineFinding[] {
  const findings: AddedLineFinding[] = []
  for (const edit of edits) {
    if (edit.after === null) continue
    for (const { text, line } of addedBlocks(edit.before ?? '', edit.after)) {
      const lineOf = (offset: number) => line + countNewlines(text.slice(0, offset))
      for (const match of dedupe(findSecrets(text, COMMIT_RULES)))
        findings.push({
          path: edit.path,
          line: lineOf(match.start),
          rule: 'secret-detected',
          what: match.rule
        })
      if (masker?.holdsKnown(text))
        findings.push({
          path: edit.path,
          line,
          rule: 'secret-detected',
          what: 'known-secret-value'
        })
      // A byte order mark at the very start of a file is an encoding marker, not a trick.
      const scanned = line === 1 ? text.replace(/^\ufeff/, '') : text
      const hidden = HIDDEN_IN_CODE.exec(scanned)
      if (hidden) {
        const code = hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
        findings.push({
          path: edit.path,
          line: lineOf(hidden.index),
          rule: 'unicode',
          what: `U+${code}`
        })
      }
    }
  }
  return findings
}

/** One finding per secret: two rules matching the same text name it once. */
function dedupe<T extends { start: number; end: number }>(matches: T[]): T[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end)
  return sorted.filter((match, i) => i === 0 || match.start >= sorted[i - 1]!.end)
}

function addedBlocks(before: string, after: string): Array<{ text: string; line: number }> {
  const blocks: Array<{ text: string; line: number }> = []
  let line = 1
  for (const part of diffLines(before, after)) {
    if (part.added) blocks.push({ text: part.value, line })
    if (!part.removed) line += countNewlines(part.value)
  }
  return blocks
}

function countNewlines(text: string): number {
  let count = 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++
  return count
}
