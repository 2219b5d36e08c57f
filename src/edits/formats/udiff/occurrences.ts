/** Where the lines occur one after another in the file (both sides as loose keys). */
export function occurrences(lines: readonly string[], file: readonly string[]): number[] {
  const found: number[] = []
  for (let at = 0; at + lines.length <= file.length; at++) {
    if (lines.every((line, k) => file[at + k] === line)) found.push(at)
  }
  return found
}
