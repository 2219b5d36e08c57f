import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { StyleConfig } from '../contract/index.js'

export const DEFAULT_STYLE: StyleConfig = {
  indent_style: 'space',
  indent_size: 2,
  end_of_line: 'lf',
  insert_final_newline: true
}

/**
 * The style of one file: its `.editorconfig` sections (searched from the file's folder up to
 * the repository root, not above), then `fallback` (the snapshot's style_config) for what they
 * leave unset. The parser is only loaded when a `.editorconfig` exists on that way.
 */
export async function styleForFile(
  repoDir: string,
  path: string,
  fallback: StyleConfig = DEFAULT_STYLE
): Promise<StyleConfig> {
  const root = resolve(repoDir)
  const file = resolve(root, path)
  if (!hasEditorconfig(root, dirname(file))) return fallback
  const { parse } = await import('editorconfig')
  const props = await parse(file, { root })
  const indentStyle = oneOf(props.indent_style, ['tab', 'space'] as const) ?? fallback.indent_style
  const size = [props.indent_size, props.tab_width].find(
    (value): value is number => typeof value === 'number' && value > 0
  )
  const eol = oneOf(props.end_of_line, ['lf', 'crlf'] as const) ?? fallback.end_of_line
  return {
    indent_style: indentStyle,
    indent_size: size ?? fallback.indent_size,
    end_of_line: eol,
    insert_final_newline:
      typeof props.insert_final_newline === 'boolean'
        ? props.insert_final_newline
        : fallback.insert_final_newline
  }
}

function hasEditorconfig(root: string, from: string): boolean {
  if (relative(root, from).startsWith('..')) return false
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.editorconfig'))) return true
    if (dir === root || !dir.startsWith(root + sep)) return false
  }
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((candidate) => candidate === value)
}

/**
 * What a file's own text shows of its style, for what `.editorconfig` leaves unset: tabs or
 * spaces by which indents more lines, the indent size as the step most lines indent by over the
 * line above, CRLF or LF by which ends more lines, and whether it ends with a newline. What the
 * text cannot show (an empty file, no indented line) is left out.
 */
export function fileStyle(content: string): Partial<StyleConfig> {
  const style: Partial<StyleConfig> = {}
  if (content === '') return style
  const crlf = content.match(/\r\n/g)?.length ?? 0
  const lf = (content.match(/\n/g)?.length ?? 0) - crlf
  if (crlf + lf > 0) style.end_of_line = crlf > lf ? 'crlf' : 'lf'
  style.insert_final_newline = content.endsWith('\n')
  let tabbed = 0
  let spaced = 0
  let previous = 0
  const steps = new Map<number, number>()
  for (const line of content.split(/\r?\n/)) {
    if (line.trim() === '') continue
    if (line.startsWith('\t')) {
      tabbed++
      continue
    }
    const width = line.length - line.trimStart().length
    // A doc comment's ` * ` lines step in by one; they say nothing of the indent.
    if (width > 0 && !/^\s*\*/.test(line)) spaced++
    if (width > previous && !/^\s*\*/.test(line)) {
      const step = width - previous
      if (step <= 8) steps.set(step, (steps.get(step) ?? 0) + 1)
    }
    previous = width
  }
  if (tabbed > spaced) style.indent_style = 'tab'
  else if (spaced > 0) {
    style.indent_style = 'space'
    const [size] = [...steps].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0] ?? []
    if (size !== undefined) style.indent_size = size
  }
  return style
}
