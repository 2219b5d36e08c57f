/** What an issue names that a search can find: file paths, code identifiers, quoted text. */
export interface SearchTerms {
  paths: string[]
  identifiers: string[]
  phrases: string[]
}

const MAX_TERMS = 40
const CODE_SPAN = /`([^`\n]{1,200})`/g
// Quotes that open and close a phrase; an apostrophe inside a word (don't) is not one.
const QUOTED = /"([^"\n]{3,120})"|(?<![A-Za-z0-9])'([^'\n]{3,120})'(?![A-Za-z0-9])/g
const WORD = /[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*/g
const PATH_TOKEN = /[A-Za-z0-9_@./-]+/g
const EXTENSION = /\.[A-Za-z][A-Za-z0-9]{0,7}$/
const COMMON = new Set(['e.g', 'i.e', 'etc', 'vs', 'node.js', 'next.js', 'vue.js'])

/**
 * Tokenizes an issue for the candidate search. Identifiers are the words that look like code:
 * camelCase, PascalCase with two humps, snake_case, or a word called like a function (`name(`);
 * plain English words are left out, or every file would match.
 */
export function searchTerms(text: string): SearchTerms {
  const paths = new Set<string>()
  const identifiers = new Set<string>()
  const phrases = new Set<string>()
  for (const match of text.matchAll(CODE_SPAN)) {
    const span = match[1]!.trim()
    if (isPath(span)) paths.add(cleanPath(span))
    else if (/^[A-Za-z_$][\w$.]*(\(\))?$/.test(span)) addIdentifier(identifiers, span, true)
    else if (span.length >= 3) phrases.add(span)
  }
  for (const match of text.matchAll(QUOTED)) {
    const phrase = (match[1] ?? match[2] ?? '').trim()
    if (isPath(phrase)) paths.add(cleanPath(phrase))
    else if (phrase.length >= 3) phrases.add(phrase)
  }
  for (const match of text.matchAll(PATH_TOKEN)) {
    const token = match[0].replace(/[.,:;!?]+$/, '')
    if (isPath(token)) paths.add(cleanPath(token))
  }
  for (const match of text.matchAll(WORD)) {
    const word = match[0]
    const called = text[(match.index ?? 0) + word.length] === '('
    addIdentifier(identifiers, word, called)
  }
  return {
    paths: [...paths].slice(0, MAX_TERMS),
    identifiers: [...identifiers].slice(0, MAX_TERMS),
    phrases: [...phrases].slice(0, MAX_TERMS)
  }
}

function addIdentifier(into: Set<string>, word: string, called: boolean): void {
  for (const part of word.replace(/\(\)$/, '').split('.')) {
    if (part.length >= 3 && (called || looksLikeCode(part))) into.add(part)
  }
}

function looksLikeCode(word: string): boolean {
  return (
    /[a-z][A-Z]/.test(word) || // camelCase
    /^[A-Z][a-z0-9]+[A-Z]/.test(word) || // PascalCase, two humps
    /[A-Za-z0-9]_[A-Za-z0-9]/.test(word) // snake_case, SCREAMING_CASE
  )
}

function isPath(token: string): boolean {
  if (token.length < 3 || token.length > 300 || /\s/.test(token)) return false
  if (/^[a-z]+:\/\//i.test(token) || token.startsWith('//') || COMMON.has(token.toLowerCase()))
    return false
  if (/^v?\d+(\.\d+)+$/.test(token)) return false // a version
  const name = token.split('/').pop() ?? ''
  return EXTENSION.test(name) || (token.includes('/') && /[A-Za-z]/.test(name))
}

function cleanPath(token: string): string {
  return token.replace(/^\.\//, '').replace(/^\/+/, '').replace(/\/+$/, '')
}
