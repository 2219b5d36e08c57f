import { clip, patchError } from '../../patch-error.js'
import { jsonOf, unwrapToolCall } from '../reply-json.js'
import { unfencedBlocks, type DiffBlock } from './blocks.js'
import { isAskingHeader } from './parse-headers.js'
import { strayInHunk } from './parse-sections.js'

const FENCE = /^(```|~~~)/
// A tag on a line of its own at the start of the line: diff lines start with ' ', '+' or '-', so
// an indented "<div>" is content, not a wrapper.
const TAG_LINE = /^<\/?[A-Za-z_][\w:-]*(\s[^>]*)?>\s*$/
// A line that can belong to a diff: a hunk's line or a header.
const DIFF_LINE = /^([ +\-\\]|@@|diff |index )/
const HEADER = /^(@@|diff --git |--- |\+\+\+ |index |new file mode |deleted file mode )/
const SEND_UDIFF =
  'Reply with the raw unified diff only: "--- a/<path>" and "+++ b/<path>" headers, then "@@ -<line>,<count> +<line>,<count> @@" hunks, ' +
  'with no markdown fences, tags or explanations around it.'

// End-of-turn tokens a local model server sometimes leaves on the last line of a reply.
const STOP_TOKENS =
  /(<\|(?:endoftext|im_end|eot_id|end|eos|file_separator|end_of_turn)\|>|<\/s>|<end_of_turn>)+\s*$/

/** The diff in a reply, and whether the reply was cut off inside it (see `readDiffReply`). */
interface DiffReply {
  diff: string
  /**
   * The reply stopped inside the diff: its fence or `<patch>`-style tag was never closed, so its
   * last line may be half-written and its last hunk unfinished.
   */
  cutOff: boolean
  /** Where each of the reply's diff blocks starts in `diff`, with the prose before it. */
  blocks: DiffBlock[]
}

/** The diff alone; see `readDiffReply`. */
export function extractDiff(reply: string): string {
  return readDiffReply(reply).diff
}

/**
 * Takes the diff out of a model reply: markdown fences, tool-call style tags and prose around it
 * are removed, stop tokens stuck to its end are dropped, and a JSON reply (`{"diff": …,
 * "reasoning": …}`, possibly inside a tool call) gives its `diff`. A reply with no diff in it, or
 * with fences or tags inside the diff itself, is refused with a message that tells the model what
 * to send instead.
 */
export function readDiffReply(reply: string): DiffReply {
  const json = jsonOf(reply)
  if (json !== undefined) {
    const diff = unwrapToolCall(json, (object) =>
      typeof object.diff === 'string'
        ? object.diff
        : typeof object.patch === 'string'
          ? object.patch
          : undefined
    )
    if (diff !== undefined) return readDiffReply(diff)
  }
  const body = reply.replace(/\r\n/g, '\n').replace(STOP_TOKENS, '').split('\n')
  const starts = body.map((_, i) => isDiffStart(body, i))
  const first = starts.indexOf(true)
  const changes = (line: string) =>
    line.startsWith('@@') || /^[+-](?![+-]{2} )/.test(line) || line.startsWith('new file mode ')
  if (first < 0 || !body.some(changes)) {
    throw patchError(
      `The reply holds no unified diff (no "@@" hunk and no +/- lines). ${SEND_UDIFF}`,
      {
        kind: 'no-diff'
      }
    )
  }
  const fenced = fencedDiff(body, starts)
  if (fenced !== undefined) return fenced
  const end = lastDiffLine(body, first, starts.lastIndexOf(true))
  return {
    diff: checked(body.slice(first, end + 1)),
    cutOff: unclosedTag(body, first, end),
    blocks: unfencedBlocks(body, first, end, starts)
  }
}

/** `<patch>` (or `<diff>`) before the diff and no closing tag after it: the reply stopped early. */
function unclosedTag(body: readonly string[], first: number, end: number): boolean {
  const opening = body
    .slice(0, first)
    .map((line) => /^<([A-Za-z_][\w-]*)>\s*$/.exec(line.trim())?.[1])
    .filter((name) => name !== undefined)
    .pop()
  let last = body.length - 1
  while (last > end && body[last]!.trim() === '') last--
  return (
    opening !== undefined &&
    end === last &&
    !body.slice(end + 1).some((line) => line.trim() === `</${opening}>`)
  )
}

function isDiffStart(lines: readonly string[], i: number): boolean {
  const line = lines[i]!
  return (
    line.startsWith('diff --git ') ||
    line.startsWith('@@') ||
    (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ') === true)
  )
}

/**
 * A diff inside markdown fences: the fenced blocks that hold diff headers, joined. When diff
 * headers also stand outside every fence, the fences are inside the diff and it is refused.
 */
function fencedDiff(body: readonly string[], starts: readonly boolean[]): DiffReply | undefined {
  const blocks: { from: number; to: number }[] = []
  let open = -1
  body.forEach((line, i) => {
    if (!FENCE.test(line) && !(open >= 0 && closesIndented(body, open, i))) return
    if (open < 0) open = i
    else {
      blocks.push({ from: open + 1, to: i })
      open = -1
    }
  })
  if (open >= 0) blocks.push({ from: open + 1, to: body.length })
  const inside = (i: number) => blocks.some((block) => i >= block.from && i < block.to)
  const holding = blocks.filter((block) => starts.slice(block.from, block.to).includes(true))
  if (holding.length === 0) return undefined
  const stray = starts.findIndex((start, i) => start && !inside(i))
  if (stray >= 0) {
    const fence = body.findIndex((line, i) => FENCE.test(line) && i > holding[0]!.from)
    throw contaminated(body, fence >= 0 ? fence : stray)
  }
  const diffBlocks: DiffBlock[] = []
  const lines: string[] = []
  let proseFrom = 0
  for (const block of holding) {
    const first = body.slice(block.from, block.to).findIndex((_, k) => starts[block.from + k])
    diffBlocks.push({ line: lines.length, prose: body.slice(proseFrom, block.from + first) })
    lines.push(...body.slice(block.from + first, block.to))
    proseFrom = block.to + 1
  }
  return {
    diff: checked(lines),
    cutOff: holding[holding.length - 1]!.to === body.length && open >= 0,
    blocks: diffBlocks
  }
}

/**
 * Whether line `i` closes the fence opened at `open` though indented: by one to three spaces, of
 * the opening fence's kind and at least its length, nothing after it (CommonMark's closing
 * fence). It is the file's own line (a context line " ```" of a README) when the diff goes on
 * after it or a fence follows it (the one that closes), so it closes only before prose or the
 * end of the reply.
 */
function closesIndented(body: readonly string[], open: number, i: number): boolean {
  const opening = /^(`{3,}|~{3,})/.exec(body[open]!)?.[1]
  const closing = /^ {1,3}(`{3,}|~{3,})[ \t]*$/.exec(body[i]!)?.[1]
  if (!opening || !closing || closing[0] !== opening[0] || closing.length < opening.length)
    return false
  const next = body.slice(i + 1).find((line) => line.trim() !== '')
  return next === undefined || (!DIFF_LINE.test(next) && !FENCE.test(next))
}

/** Refuses fences and tags inside the diff; returns it with one final newline. */
function checked(lines: readonly string[]): string {
  const kept = [...lines]
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept.pop()
  const bad = kept.findIndex((line) => FENCE.test(line) || TAG_LINE.test(line))
  if (bad >= 0) throw contaminated(kept, bad)
  return kept.join('\n') + '\n'
}

function contaminated(lines: readonly string[], at: number) {
  return patchError(
    `The diff is contaminated at line ${at + 1} ("${clip(lines[at]!.trim(), 40)}"): markdown fences, ` +
      `tags such as <tool_call> and explanations may not appear inside it. Regenerate the diff. ${SEND_UDIFF}`,
    { kind: 'contaminated-diff', line: at + 1 }
  )
}

/** The last line that can belong to a diff that starts at `first`; prose after it is dropped. */
function lastDiffLine(lines: readonly string[], first: number, lastStart: number): number {
  let last = first
  let inHunk = false
  // Between a `diff --git` line and its first hunk: where git's extended headers stand.
  let inGitHeader = false
  for (let i = first; i < lines.length; i++) {
    const line = lines[i]!
    if (isHeader(lines, i)) {
      // A hunk header may come glued onto a file header: "+++ b/x.c @@ -1,3 +1,4 @@".
      inHunk = line.startsWith('@@') || /^(---|\+\+\+) .*@@ -\d/.test(line)
      inGitHeader = line.startsWith('diff --git ') || (inGitHeader && !inHunk)
      last = i
    } else if (inGitHeader && isAskingHeader(line)) {
      // A header asking for a mode, a copy or a binary is kept, for the policy to refuse.
      last = i
    } else if (inHunk && (/^[-+ \\]/.test(line) || (i < lastStart && strayInHunk(lines, i)))) {
      // A line that lost its prefix, with more hunk lines and headers after it, stays for the
      // parser to refuse (after the last header, it is prose: a list of "- " points ends a diff).
      last = i
    } else if (!(inHunk && line === '')) {
      inHunk = false
      inGitHeader = false
      if (i > lastStart) break
    }
  }
  return last
}

/** A header line; `---` only with its `+++` (else it is a removed line starting with "--"). */
function isHeader(lines: readonly string[], i: number): boolean {
  const line = lines[i]!
  if (line.startsWith('--- ')) return lines[i + 1]?.startsWith('+++ ') === true
  if (line.startsWith('+++ ')) return lines[i - 1]?.startsWith('--- ') === true
  return HEADER.test(line)
}
