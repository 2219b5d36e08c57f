import stripAnsi from 'strip-ansi'

/** A failure's message is cut to a few hundred characters later: its block is read this far at most,
 * so hostile output cannot make every block scan to the end. */
export const BLOCK_LINES = 200

/**
 * Output with what changes from run to run taken out (timings, durations, dates, temporary
 * paths, memory addresses, process and thread ids, hashes) and what a test asserted kept:
 * "expected 5, got -1" stays as it is, "(0.00s)" and "0x7f3a2c1b9e80" do not.
 */
export function normaliseOutput(text: string): string {
  return stripAnsi(text)
    .split('\n')
    .map(normaliseLine)
    .filter((line) => line.length > 0)
    .join('\n')
}

function normaliseLine(line: string): string {
  return (
    line
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?/g, '<date>')
      .replace(/\b\d\d:\d\d:\d\d(\.\d+)?\b/g, '<clock>')
      .replace(
        /(\/(tmp|var\/tmp|private\/var\/folders)\/|[A-Z]:\\Temp\\)[^\s:'"`)]+(:\d+(:\d+)?)?/gi,
        '<tmp>'
      )
      .replace(/\b0x[0-9a-f]{4,16}\b/gi, '<addr>')
      .replace(/\b[0-9a-f]{12,64}\b/g, '<hash>')
      // "(40 ms)", "in 1.93s", "0.006s", "duration_ms: 6.8", "Time: 1.285 s, estimated 2 s"
      .replace(/\b\d+(\.\d+)?\s?(ms|µs|us|ns|s|sec|secs|seconds)\b(?![\w-])/g, '<time>')
      .replace(/\b(duration_ms|elapsed|time)(["']?\s*[:=]\s*)\d+(\.\d+)?/gi, '$1$2<time>')
      // Positions in source files move with every edit; the failure is the same.
      .replace(/(\.[A-Za-z][A-Za-z0-9]{0,5})(:\d+(:\d+)?|\(\d+(,\d+)?\))/g, '$1:<pos>')
      .replace(/\bthread '([^']*)' \(\d+\)/g, "thread '$1'")
      .replace(/\bpid[ =:]\d+/gi, 'pid <n>')
      .replace(/\s+/g, ' ')
      .trim()
  )
}
