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
