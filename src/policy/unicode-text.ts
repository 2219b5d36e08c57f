import { minimatch } from 'minimatch'

/**
 * Files whose text is content, not code: translations, where joiners, bidi marks and
 * zero-width spaces are how languages are written (Persian, Hindi, Hebrew, Thai, emoji).
 * Added lines there are refused only for what hides or reorders text anywhere (bidi
 * overrides, tag characters, interlinear annotations, runs of variation selectors); in every
 * other file each invisible or bidi character is (invisible-unicode.ts). Prose is not among
 * the defaults: Markdown and text files are read by agents and reviewers alike (README.md,
 * AGENTS.md, rule files), and hidden instructions in rule files were written with exactly these
 * characters. `unicode-text-paths` adds globs (a `docs/fa/**` of Persian documentation).
 */
const DEFAULT_UNICODE_TEXT_GLOBS = [
  // translation catalogues
  '**/*.{po,pot,xliff,xlf,strings,stringsdict,arb,ftl,resx,resw}',
  // data files in locale folders (locales/fa.json, i18n/he.yml, messages/ar.json)
  '**/{locale,locales,i18n,l10n,lang,langs,translations,messages}/**/*.{json,json5,yaml,yml,toml,properties,xml,ini}'
] as const

const GLOB = { dot: true, nocase: true } as const

/** Whether a path's text is content: one of the defaults or of the setting's globs. */
export function unicodeTextMatcher(extra: readonly string[] = []): (path: string) => boolean {
  const globs = [...DEFAULT_UNICODE_TEXT_GLOBS, ...extra]
  return (path) => globs.some((glob) => minimatch(path, glob, GLOB))
}
