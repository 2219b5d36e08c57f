import type { SyntaxOutline } from '../edits/index.js'
import { fence } from './untrusted-text.js'

// Declarations worth listing in an outline, across the common languages, plus markdown headings.
const OUTLINE_LINE = [
  /^#{1,6}\s+\S/,
  /^\s{0,4}(?:(?:export|default|abstract|async|pub(?:\([a-z]+\))?|public|private|protected|internal|static|final|sealed|data|open|unsafe)\s+)*(?:function\*?|class|interface|type|enum|struct|trait|impl|fn|def|func|module|mod|namespace|record|object)\s+[\w$(]/,
  /^\s{0,4}(?:export\s+)?const\s+[\w$]+\s*=\s*(?:async\s*)?(?:\([^)]*\)|[\w$]+)\s*=>/,
  /^\s{0,4}(?:describe|it|test)\(/
]
// Imports and includes: what the code in the window may use without seeing where it comes from.
const IMPORT_LINE =
  /^(?:import\b|from\s+[\w.]+\s+import\b|#\s*include\b|using\s+[\w.]+\s*;|use\s+[\w:{}, ]+;|(?:const|let|var)\s+[\w${}, ]+=\s*require\()/
const DECLARED_NAME =
  /\b(?:function\*?|class|interface|type|enum|struct|trait|fn|def|func|module|mod|namespace|record|object|const)\s+([A-Za-z_$][\w$]*)/
const MAX_OUTLINE = 40
const MAX_IMPORTS = 20
const MAX_OUTLINE_LINE = 120

export interface FileWindow {
  /** 1-based, inclusive. */
  start: number
  end: number
  totalLines: number
  /** The text that stands for the file in the prompt. */
  text: string
}

/**
 * A numbered window of `radius` lines either side of `range`, preceded by the file's outline
 * (its declarations outside the window), so the model sees where it is without the whole file.
 */
export function fileWindow(
  path: string,
  content: string,
  range: readonly [number, number],
  radius: number,
  syntax?: SyntaxOutline | null
): FileWindow {
  const lines = content.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const total = lines.length
  const from = Math.max(1, Math.min(range[0], range[1], total) - radius)
  const to = Math.min(total, Math.max(range[0], range[1]) + radius)
  const width = String(to).length
  const numbered = lines
    .slice(from - 1, to)
    .map((line, i) => `${String(from + i).padStart(width)} | ${line}`)
    .join('\n')
  const outline = outlineOf(lines, from, to, syntax)
  const text = [
    `${path} has ${total} lines; only lines ${from}-${to} are shown, around the lines of interest ` +
      `(${range[0]}-${range[1]}). Each shown line starts with its line number and " | ": ` +
      'those prefixes are not part of the file, so never copy them into your edit.',
    outline.length > 0
      ? // File lines, like the window: fenced as data, with secret-looking text redacted.
        `Outline of the rest of the file (line number: declaration):\n${fence(outline.join('\n'))}`
      : '',
    fence(numbered)
  ]
    .filter((part) => part !== '')
    .join('\n\n')
  return { start: from, end: to, totalLines: total, text }
}

/**
 * Import and declaration lines outside [from, to], by tree-sitter (`syntax`) where the language
 * is known, else by line patterns: the first imports, then, when there are too many declarations, those the window's code names first and the nearest to the window next.
 */
export function outlineOf(
  lines: readonly string[],
  from: number,
  to: number,
  syntax?: SyntaxOutline | null
): string[] {
  const outside = (number: number) => number < from || number > to
  let found: number[] = []
  let imports: number[] = []
  if (syntax) {
    // `require` calls are plain declarations to the grammar: the line pattern finds them.
    const required = lines.flatMap((line, i) => (IMPORT_LINE.test(line) ? [i + 1] : []))
    imports = [...new Set([...syntax.imports, ...required])]
      .filter(outside)
      .sort((a, b) => a - b)
      .slice(0, MAX_IMPORTS)
    found = [...new Set(syntax.definitions)].filter(outside).sort((a, b) => a - b)
  } else {
    lines.forEach((line, i) => {
      if (!outside(i + 1)) return
      if (IMPORT_LINE.test(line)) {
        if (imports.length < MAX_IMPORTS) imports.push(i + 1)
      } else if (OUTLINE_LINE.some((pattern) => pattern.test(line))) found.push(i + 1)
    })
  }
  const shown = new Set(
    lines
      .slice(from - 1, to)
      .join('\n')
      .match(/[A-Za-z_$][\w$]*/g)
  )
  const named = (number: number) => {
    const name = DECLARED_NAME.exec(lines[number - 1]!)?.[1]
    return name !== undefined && shown.has(name)
  }
  const kept =
    found.length <= MAX_OUTLINE
      ? found
      : found
          .map((number) => ({
            number,
            rank: (named(number) ? 0 : lines.length) + Math.max(from - number, number - to)
          }))
          .sort((a, b) => a.rank - b.rank)
          .slice(0, MAX_OUTLINE)
          .map(({ number }) => number)
          .sort((a, b) => a - b)
  return [...imports, ...kept].map((number) => {
    const text = lines[number - 1]!.trimEnd()
    const short = text.length > MAX_OUTLINE_LINE ? `${text.slice(0, MAX_OUTLINE_LINE)}…` : text
    return `${String(number).padStart(6)}: ${short}`
  })
}
