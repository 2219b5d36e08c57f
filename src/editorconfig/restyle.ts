import { diffArrays } from 'diff'
import type { EditorRules } from './rules.js'

interface Line {
  text: string
  /** '\n', '\r\n', '\r', or '' for a last line without one. */
  end: string
}

const BOM = '\uFEFF'
const EOL = { lf: '\n', crlf: '\r\n', cr: '\r' } as const

/**
 * `after` with the `.editorconfig` rules applied to the lines the edit added (compared with
 * `before`, the base; null: a new file): indentation, trailing whitespace, line ending, the final
 * newline and, for a new file, the byte order mark. Lines the edit kept are never touched, and a
 * rule the file's own lines contradict throughout (a file indented with spaces under
 * `indent_style = tab`, LF lines under `end_of_line = crlf`) is left to the file: mixing the two
 * in one file would be worse than either.
 */
export function restyleAdded(before: string | null, after: string, rules: EditorRules): string {
  if (Object.keys(rules).length === 0) return after
  const old = linesOf(stripBom(before ?? ''))
  const bom = after.startsWith(BOM)
  const lines = linesOf(bom ? after.slice(1) : after)
  const added = addedIndexes(old, lines)
  if (added.size === 0) return after
  const indent =
    before === null || fileIndent(old) !== opposite(rules.indent_style)
      ? rules.indent_style
      : undefined
  const eol = rules.end_of_line ? agreeingEol(old, rules.end_of_line) : undefined
  const unit =
    rules.indent_size ?? rules.tab_width ?? spaceUnit(lines.filter((_, i) => added.has(i)))
  const out = lines.map((line, i) => {
    if (!added.has(i)) return line
    let text = line.text
    if (rules.trim_trailing_whitespace) text = text.replace(/[ \t]+$/, '')
    if (indent) text = reindent(text, indent, unit, rules.tab_width ?? unit)
    const end = line.end !== '' && eol ? eol : line.end
    return { text, end }
  })
  const last = out.length - 1
  if (last >= 0 && added.has(last) && rules.insert_final_newline !== undefined) {
    const end = out[last]!.end
    if (rules.insert_final_newline && end === '')
      out[last] = { ...out[last]!, end: eol ?? dominantEol(out) }
    if (!rules.insert_final_newline && end !== '') out[last] = { ...out[last]!, end: '' }
  }
  const keepBom =
    before === null ? rules.charset === 'utf-8-bom' || (bom && rules.charset !== 'utf-8') : bom
  return (keepBom ? BOM : '') + out.map((line) => line.text + line.end).join('')
}

function linesOf(text: string): Line[] {
  const lines: Line[] = []
  const pattern = /([^\r\n]*)(\r\n|\n|\r|$)/g
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match[0] === '') break
    lines.push({ text: match[1]!, end: match[2]! })
  }
  return lines
}

function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text
}

/** The indexes in `after` of the lines the edit added (by a line diff on their text). */
function addedIndexes(before: readonly Line[], after: readonly Line[]): Set<number> {
  const added = new Set<number>()
  let at = 0
  for (const part of diffArrays(
    before.map((line) => line.text),
    after.map((line) => line.text)
  )) {
    if (part.removed) continue
    if (part.added) for (let i = 0; i < part.value.length; i++) added.add(at + i)
    at += part.value.length
  }
  return added
}

/** The step the added lines were indented with in spaces: 2 when some are not by 4s, else 4. */
function spaceUnit(lines: readonly Line[]): number {
  const widths = lines.map((line) => /^ */.exec(line.text)![0].length).filter((w) => w > 0)
  return widths.some((w) => w % 4 !== 0) && widths.every((w) => w % 2 === 0) ? 2 : 4
}

function opposite(style: EditorRules['indent_style']): 'tab' | 'space' | undefined {
  return style === 'tab' ? 'space' : style === 'space' ? 'tab' : undefined
}

/** How the file's own lines are indented, when they all agree. */
function fileIndent(lines: readonly Line[]): 'tab' | 'space' | undefined {
  let tabs = 0
  let spaces = 0
  for (const { text } of lines) {
    if (text.startsWith('\t')) tabs++
    else if (/^ {2,}\S/.test(text)) spaces++
  }
  return tabs > 0 && spaces === 0 ? 'tab' : spaces > 0 && tabs === 0 ? 'space' : undefined
}

/**
 * The ending added lines get: the rule's, unless every ended line of the base uses one other
 * ending (a CRLF work tree under `core.autocrlf`, a file committed with CRLF), which is kept.
 */
function agreeingEol(lines: readonly Line[], rule: keyof typeof EOL): string | undefined {
  const ends = new Set(lines.map((line) => line.end).filter((end) => end !== ''))
  if (ends.size === 1 && !ends.has(EOL[rule])) return undefined
  return EOL[rule]
}

function dominantEol(lines: readonly Line[]): string {
  const counts = new Map<string, number>()
  for (const { end } of lines) if (end !== '') counts.set(end, (counts.get(end) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '\n'
}

/** The line's leading whitespace rewritten in the rule's style, its width kept. */
function reindent(text: string, style: 'tab' | 'space', unit: number, tabWidth: number): string {
  const lead = /^[ \t]*/.exec(text)![0]
  if (lead === '' || lead.length === text.length) return text
  let columns = 0
  for (const char of lead)
    columns = char === '\t' ? columns + tabWidth - (columns % tabWidth) : columns + 1
  const rest = text.slice(lead.length)
  if (style === 'space') return ' '.repeat(columns) + rest
  return '\t'.repeat(Math.floor(columns / unit)) + ' '.repeat(columns % unit) + rest
}
