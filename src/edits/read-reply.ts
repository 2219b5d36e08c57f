import { InvalidDiffError } from '../contract/index.js'
import {
  parseAs,
  writtenIn,
  type ParseHints,
  type ReplyFormat,
  type ReplyFormatOrAuto
} from './formats/index.js'
import type { FileInstruction, HeaderLog, ReplyClaims } from './types.js'

/** A reply read in its format, before it meets any file. */
export interface ReadReply {
  /** The format the reply was read in (the one asked for, or the one it is plainly written in). */
  format: ReplyFormat
  instructions: FileInstruction[]
  /** What it names and asks beyond its content, for the path policy. */
  claims: ReplyClaims
  /** Why it cannot be applied, found while reading; thrown when it is applied. */
  refusal?: InvalidDiffError
}

/**
 * Reads a reply once: the instructions it gives and the claims they make. Headers that ask what
 * no text edit may do are recorded as claims, not thrown, and so are the names of a reply that
 * cannot be read whole, so the path policy can refuse them as what they are; applying the reply
 * refuses them too (editsFromRead).
 */
export function readReply(
  format: ReplyFormatOrAuto,
  reply: string,
  options: { cutOff?: boolean } = {}
): ReadReply {
  const headers: HeaderLog = { sections: [], asks: [] }
  const wanted = format === 'auto' ? detectFormat(reply) : format
  let read: { format: ReplyFormat; instructions: FileInstruction[] } = {
    format: wanted,
    instructions: []
  }
  let refusal: InvalidDiffError | undefined
  try {
    read = parseReply(wanted, reply, { cutOff: options.cutOff === true, headers })
  } catch (error) {
    if (!(error instanceof InvalidDiffError)) throw error
    refusal = error
  }
  const { instructions } = read
  const paths = instructions.flatMap((i) => (i.kind === 'hunks' || i.path === null ? [] : [i.path]))
  return {
    format: read.format,
    instructions,
    claims: { ...headers, paths },
    ...(refusal ? { refusal } : {})
  }
}

/**
 * The reply read in its format. A reply that holds nothing in that format but is plainly written
 * in another one (the repair prompt, or a model's habit, can bring that about) is read in that.
 */
function parseReply(
  wanted: ReplyFormat,
  reply: string,
  hints: ParseHints
): { format: ReplyFormat; instructions: FileInstruction[] } {
  try {
    return { format: wanted, instructions: parseAs(wanted, reply, hints) }
  } catch (error) {
    const rule = error instanceof InvalidDiffError ? error.details.rule : undefined
    const written = writtenIn(reply)
    if (
      !written ||
      written === wanted ||
      !['no-diff', 'no-edits', 'bad-json'].includes(String(rule))
    )
      throw error
    try {
      return { format: written, instructions: parseAs(written, reply, hints) }
    } catch {
      throw error
    }
  }
}

/** The format a reply is written in, by its markers; a unified diff when none shows. */
export function detectFormat(reply: string): ReplyFormat {
  return writtenIn(reply) ?? 'udiff'
}
