import { createHash } from 'node:crypto'

const ERROR_LINE =
  /\b(error|errors|failed|failure|fail|exception|traceback|panic|fatal|assert\w*|expected|cannot|undefined|not found|syntaxerror|typeerror)\b|✗|×|✖/i

/**
 * The part of a command's output a model needs to repair it: error lines first (with a line
 * of context each), then the tail, within `limit` characters.
 */
export function errorExcerpt(stdout: string, stderr: string, limit = 8_000): string {
  const lines = `${stderr}\n${stdout}`.split('\n')
  const picked = new Set<number>()
  lines.forEach((line, i) => {
    if (ERROR_LINE.test(line))
      [i - 1, i, i + 1].forEach((k) => k >= 0 && k < lines.length && picked.add(k))
  })
  const errors = [...picked].sort((a, b) => a - b).map((i) => lines[i]!)
  const errorText = errors.join('\n').slice(0, Math.floor(limit * 0.6))
  const tailBudget = limit - errorText.length
  const all = lines.join('\n').trim()
  const tail = all.length > tailBudget ? all.slice(all.length - tailBudget) : all
  return errorText ? `Error lines:\n${errorText}\n\nEnd of output:\n${tail}` : tail
}

/**
 * A fingerprint of a failure that ignores what changes from run to run (numbers, line and
 * column positions, durations, temp paths, hashes), so "the same failure again" is detectable.
 */
export function failureFingerprint(exitCode: number, stdout: string, stderr: string): string {
  const lines = `${stderr}\n${stdout}`.split('\n')
  const errorLines = lines.filter((line) => ERROR_LINE.test(line))
  const normalised = (errorLines.length > 0 ? errorLines : lines.slice(-20))
    .map((line) =>
      line
        .replace(/\/tmp\/[^\s:'"]+/g, '<tmp>')
        .replace(/\b[0-9a-f]{7,40}\b/g, '<hash>')
        // \b first: without it a long run of digits is tried from each digit (quadratic).
        .replace(/\b\d+(\.\d+)?\s*(ms|s|sec|seconds)\b/g, '<time>')
        // Positions move with every edit; other numbers are the failure ("got 2" is not "got 4").
        .replace(/(\.[A-Za-z0-9]+)(:\d+(:\d+)?|\(\d+(,\d+)?\))/g, '$1:<pos>')
        .replace(/\b(line|col|column)\s+\d+/gi, '$1 <n>')
        .replace(/\s+/g, ' ')
        .trim()
    )
    .filter((line) => line.length > 0)
  const unique = [...new Set(normalised)].sort()
  return createHash('sha256')
    .update(`${exitCode === 0 ? 0 : 1}\n${unique.join('\n')}`)
    .digest('hex')
    .slice(0, 16)
}
