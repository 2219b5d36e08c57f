import { isAskingHeader } from './parse-headers.js'

/** One diff block of a reply: a fenced block, or a run of diff lines with prose before it. */
export interface DiffBlock {
  /** 0-based line of the extracted diff where the block starts. */
  line: number
  /** The reply's lines between the block before it (or the reply's start) and this block. */
  prose: string[]
}

// Lines a diff may hold between its hunks: headers and hunk lines (blank lines too).
const DIFF_MATERIAL = /^([ +\-\\]|@@|diff |index |(new|deleted) file mode )|^\s*$/

/**
 * The blocks of a diff that stands in no fence (lines `first` to `end` of the reply): a new
 * block starts at each diff start that prose stands before, since the block before.
 */
export function unfencedBlocks(
  body: readonly string[],
  first: number,
  end: number,
  starts: readonly boolean[]
): DiffBlock[] {
  const blocks: DiffBlock[] = [{ line: 0, prose: body.slice(0, first) }]
  let prose: string[] = []
  for (let i = first + 1; i <= end; i++) {
    const line = body[i]!
    if (starts[i] && prose.length > 0) {
      blocks.push({ line: i - first, prose })
      prose = []
    } else if (!DIFF_MATERIAL.test(line) && !isAskingHeader(line)) {
      prose.push(line)
    }
  }
  return blocks
}
