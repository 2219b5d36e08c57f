/** Inputs shared by the benchmarks (and the prompt tests that check the same cases). */

/** A realistic TypeScript file of `lines` lines: 10-line handler functions, one after another. */
export function largeSourceFile(lines = 3_000): string {
  const blocks: string[] = []
  for (let i = 0; blocks.length * 10 < lines; i++) {
    blocks.push(
      [
        `export function handler${i}(input: Request): Response {`,
        `  const value = input.values[${i}] ?? 0`,
        `  if (value > ${i}) {`,
        `    return respond(value - ${i}, 'over')`,
        '  }',
        `  // keep the running total for request ${i}`,
        '  total += value',
        "  return respond(total, 'ok')",
        '}',
        ''
      ].join('\n')
    )
  }
  return `${blocks.join('\n')}\n`
}

/** The seed's typo scenario: issue #42, README.md line 15. */
export const TYPO_ISSUE = {
  number: 42,
  title: 'Fix typo in README',
  body: "Line 15: 'teh' should be 'the'"
}
