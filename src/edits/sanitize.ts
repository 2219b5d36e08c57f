import { InvalidDiffError } from '../contract/index.js'

const FENCE = /^(```|~~~)/
const TAG_LINE = /^\s*<\/?[A-Za-z_][\w:-]*(\s[^>]*)?>\s*$/
const DIFF_START = /^(diff --git |--- |@@ )/
const HEADER = /^(@@|diff --git |--- |\+\+\+ |index |new file mode |deleted file mode )/
const SEND_INSTEAD =
  'Reply with the raw unified diff only: "--- a/<path>" and "+++ b/<path>" headers, then "@@" hunks, ' +
  'with no markdown fences, tags or explanations around it.'

/**
 * Takes the diff out of a model reply: markdown fences, tool-call style tags and prose around
 * it are removed. A reply with no diff in it, or with fences or tags inside the diff itself, is
 * refused with a message that tells the model what to send instead.
 */
export function extractDiff(reply: string): string {
  // The diff runs from its first header to its last diff line in the whole reply: fences and tags
  // before and after it are stripped with the prose, and any inside it are refused below.
  const body = reply.replace(/\r\n/g, '\n').split('\n')
  const start = body.findIndex((line) => DIFF_START.test(line))
  if (start < 0 || !body.some((line) => line.startsWith('@@') || /^[+-](?![+-]{2} )/.test(line))) {
    throw new InvalidDiffError(
      `The reply holds no unified diff (no "@@" hunk and no +/- lines). ${SEND_INSTEAD}`,
      {
        rule: 'no-diff'
      }
    )
  }
  const diff = body.slice(start)
  const end = lastDiffLine(diff)
  const kept = diff.slice(0, end + 1)
  const contaminated = kept.findIndex((line) => FENCE.test(line) || TAG_LINE.test(line))
  if (contaminated >= 0) {
    throw new InvalidDiffError(
      `The diff is contaminated at line ${contaminated + 1} ("${kept[contaminated]!.trim().slice(0, 40)}"). ${SEND_INSTEAD}`,
      { rule: 'contaminated-diff', line: contaminated + 1 }
    )
  }
  return kept.join('\n') + '\n'
}

/** The last line that can belong to a diff; prose after it is dropped. */
function lastDiffLine(lines: string[]): number {
  let last = 0
  let inHunk = false
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (HEADER.test(line)) {
      inHunk = line.startsWith('@@')
      last = i
    } else if (inHunk && /^[-+ \\]/.test(line)) {
      last = i
    } else if (!(inHunk && line === '')) {
      inHunk = false
      if (!lines.slice(i + 1).some((rest) => DIFF_START.test(rest))) break
    }
  }
  return last
}
