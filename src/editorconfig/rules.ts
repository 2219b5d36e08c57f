import type { ECFile, Props } from 'editorconfig'
import type { StyleConfig } from '../contract/index.js'
import type { Git } from '../git/index.js'

/** The `.editorconfig` properties Patchsmith applies to the lines an edit adds. */
export interface EditorRules {
  indent_style?: 'tab' | 'space'
  /** Columns per indentation level. */
  indent_size?: number
  tab_width?: number
  end_of_line?: 'lf' | 'crlf' | 'cr'
  insert_final_newline?: boolean
  trim_trailing_whitespace?: boolean
  charset?: 'latin1' | 'utf-8' | 'utf-8-bom' | 'utf-16be' | 'utf-16le'
}

type Parse = typeof import('editorconfig').parseFromFilesSync

const MAX_FILE_BYTES = 64 * 1024
// A root the file names are resolved under: the sections' globs only see repository paths.
const ROOT = '/repository'

/**
 * The `.editorconfig` files of one commit (the run's base), never the work tree where the
 * model's edits could have written one; matched per path by the maintained `editorconfig`
 * package, the nearest file first and up to the first `root = true`.
 */
export class EditorconfigRules {
  private readonly cache = new Map<string, EditorRules>()

  private constructor(
    private readonly files: ReadonlyMap<string, string>,
    private readonly parse?: Parse
  ) {}

  /** Reads the `.editorconfig` in every folder above `paths`, through the run's object reader. */
  static async read(
    git: Git,
    commit: string,
    paths: readonly string[]
  ): Promise<EditorconfigRules> {
    const wanted = [...new Set(paths.flatMap((path) => foldersAbove(path).map(configIn)))]
    const found = await git.objects.blobs(commit, wanted, MAX_FILE_BYTES)
    return EditorconfigRules.of(
      Object.fromEntries([...found].map(([name, bytes]) => [name, bytes.toString('utf8')]))
    )
  }

  /**
   * From texts by path. The parser (a chunk of its own in the bundle) is loaded only when a
   * repository has a `.editorconfig`.
   */
  static async of(files: Record<string, string>): Promise<EditorconfigRules> {
    const found = new Map(Object.entries(files))
    if (found.size === 0) return new EditorconfigRules(found)
    const { parseFromFilesSync } = await import('editorconfig')
    return new EditorconfigRules(found, parseFromFilesSync)
  }

  /** Whether any `.editorconfig` was found. */
  get empty(): boolean {
    return this.files.size === 0
  }

  rulesFor(path: string): EditorRules {
    let rules = this.cache.get(path)
    if (!rules) {
      const files: ECFile[] = foldersAbove(path)
        .reverse()
        .map(configIn)
        .filter((name) => this.files.has(name))
        .map((name) => ({
          name: `${ROOT}/${name}`,
          contents: Buffer.from(boundedSections(this.files.get(name)!))
        }))
      rules =
        files.length === 0 || !this.parse
          ? {}
          : known(this.parse(`${ROOT}/${path}`, files, { root: ROOT }))
      this.cache.set(path, rules)
    }
    return rules
  }

  /** The prompt's style for a path: these rules over `fallback` for what they leave unset. */
  styleFor(path: string, fallback: StyleConfig): StyleConfig {
    const rules = this.rulesFor(path)
    return {
      indent_style: rules.indent_style ?? fallback.indent_style,
      indent_size: rules.indent_size ?? rules.tab_width ?? fallback.indent_size,
      end_of_line:
        rules.end_of_line === 'crlf'
          ? 'crlf'
          : rules.end_of_line === 'lf'
            ? 'lf'
            : fallback.end_of_line,
      insert_final_newline: rules.insert_final_newline ?? fallback.insert_final_newline
    }
  }
}

function known(props: Props): EditorRules {
  const number = (value: unknown) =>
    typeof value === 'number' && value > 0 && value <= 16 ? value : undefined
  const flag = (value: unknown) => (typeof value === 'boolean' ? value : undefined)
  const tabWidth = number(props.tab_width)
  const rules: EditorRules = {
    indent_style: oneOf(props.indent_style, ['tab', 'space'] as const),
    // `indent_size = tab` means the tab width.
    indent_size: props.indent_size === 'tab' ? tabWidth : (number(props.indent_size) ?? tabWidth),
    tab_width: tabWidth,
    end_of_line: oneOf(props.end_of_line, ['lf', 'crlf', 'cr'] as const),
    insert_final_newline: flag(props.insert_final_newline),
    trim_trailing_whitespace: flag(props.trim_trailing_whitespace),
    charset: oneOf(props.charset, ['latin1', 'utf-8', 'utf-8-bom', 'utf-16be', 'utf-16le'] as const)
  }
  return Object.fromEntries(Object.entries(rules).filter(([, v]) => v !== undefined))
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((candidate) => candidate === value)
}

/** '' (the root) and each folder down to the path's own, root first. */
function foldersAbove(path: string): string[] {
  const parts = path.split('/').slice(0, -1)
  return ['', ...parts.map((_, i) => parts.slice(0, i + 1).join('/'))]
}

const MAX_SECTIONS = 200
const MAX_GLOB_CHARS = 200
const MAX_STARS = 4
const MAX_BRACES = 4

/**
 * The file without the sections whose glob the `editorconfig` package cannot match in bounded
 * time, and without sections past the 200th. Its matcher runs in this process and cannot be
 * interrupted: `[*a*a*a*a*a*a*a*a*b]` took 13 s on one path and ten stars never end,
 * `{0..999999}` takes seconds, `{a,b}` repeated expands exponentially. Real files use a
 * few stars and braces (`[**\/*.{js,ts}]`).
 */
function boundedSections(text: string): string {
  const kept: string[] = []
  let sections = 0
  let keep = true
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[(.*)\]\s*$/.exec(line)
    if (header) {
      sections++
      keep = sections <= MAX_SECTIONS && simpleGlob(header[1]!)
    }
    if (keep) kept.push(line)
  }
  return kept.join('\n')
}

function simpleGlob(glob: string): boolean {
  const count = (re: RegExp) => (glob.match(re) ?? []).length
  return (
    glob.length <= MAX_GLOB_CHARS &&
    count(/\*/g) <= MAX_STARS &&
    count(/\{/g) <= MAX_BRACES &&
    !/\d{4,}/.test(glob.match(/\{[^}]*\.\.[^}]*\}/g)?.join('') ?? '')
  )
}

function configIn(folder: string): string {
  return folder === '' ? '.editorconfig' : `${folder}/.editorconfig`
}
