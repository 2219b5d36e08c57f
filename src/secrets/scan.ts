import { diffLines } from 'diff'
import { findHiddenCharacter } from './invisible-unicode.js'
import type { SecretMasker } from './masker.js'
import { findSecrets, SECRET_RULES } from './patterns.js'

interface ScannedEdit {
  path: string
  before: string | null
  after: string | null
}

interface AddedLineFinding {
  path: string
  /** 1-based line in the new content. */
  line: number
  /**
   * `secret-detected`: a pattern rule or a known value as written; `secret-in-change`: a known
   * value encoded; `invisible-unicode`: a bidi control or an invisible character.
   */
  rule: 'secret-detected' | 'secret-in-change' | 'invisible-unicode'
  /** The secret rule, or the code point found (never the secret itself). */
  what: string
}

interface ScanOptions {
  /** Files whose text is content (unicode-text-paths): bidi and joiners are writing there. */
  isText?: (path: string) => boolean
}

const COMMIT_RULES = SECRET_RULES.filter((rule) => rule.commit)

/**
 * The lines an edit adds (all of a new file), scanned for secrets (pattern rules precise enough
 * to fail a commit, and the run's known values in any encoding) and for bidi, invisible or tag
 * characters (invisible-unicode.ts).
 */
export function scanAddedLines(
  edits: readonly ScannedEdit[],
  masker?: SecretMasker,
  options: ScanOptions = {}
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
      else if (masker && masker.countKnown(text) > 0)
        findings.push({
          path: edit.path,
          line,
          rule: 'secret-in-change',
          what: 'encoded-secret-value'
        })
      const hidden = findHiddenCharacter(text, {
        content: options.isText?.(edit.path) ?? false,
        fileStart: line === 1
      })
      if (hidden)
        findings.push({
          path: edit.path,
          line: lineOf(hidden.index),
          rule: 'invisible-unicode',
          what: hidden.codePoint
        })
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
