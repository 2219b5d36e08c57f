import ansiRegex from 'ansi-regex'

/**
 * The ways a known secret can be written that a plain search misses, found through normalised
 * readings of the text rather than one rule per case. Each secret is encoded once, in every way
 * below, and each encoding is searched for in the reading that ignores what varies:
 *
 * - letters and digits, lower-cased, everything else dropped: the value, rot13, rot18 and rot47,
 *   each also reversed; JSON- and URL-escaped; base64/base64url of its UTF-8, UTF-16LE and
 *   UTF-16BE bytes and base32 (RFC 4648, base32hex, Crockford, z-base-32) of its UTF-8 bytes,
 *   at every alignment (`x-access-token:` + token is base64 at another offset), padded or not.
 *   So any letter case and any separators between the characters (`g.h.s`, `G H S`, `g_h_s`,
 *   a line break, a colour code) are found too;
 * - hex digits, lower-cased, with `0x` prefixes and all else dropped: the UTF-8 bytes and the
 *   UTF-16 and UTF-32 units (big- and little-endian) in hex, so `%67%68`, `\x67\x68`,
 *   `\u0067\u0068`, `0067 0068`, `6700 6800`, `U+0067`, `0x67, 0x68` and `&#x67;` are one
 *   form each;
 * - digits only: character codes in decimal (`103,104`, `&#103;`) and bytes in octal (`\147`).
 *
 * A hit masks the whole stretch of the original text it was read from. Values shorter than
 * MIN_FORM are left to the plain search: their encodings are too short to be told from chance.
 */

export const MIN_FORM = 8

// RFC 4648 base32 and base32hex, Crockford's, and z-base-32: the same 5-bit groups.
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const BASE32_ALPHABETS = [
  BASE32,
  '0123456789ABCDEFGHIJKLMNOPQRSTUV',
  '0123456789ABCDEFGHJKMNPQRSTVWXYZ',
  'ybndrfg8ejkmcpqxot1uwisza345h769'
]

export type Reading = 'alnum' | 'hex' | 'digits'

/** One secret's encodings, each as its reading shows it. */
export type SecretForms = Record<Reading, string[]>

export function secretForms(value: string): SecretForms {
  const utf8 = Buffer.from(value)
  const utf16le = Buffer.from(value, 'utf16le')
  const utf16be = Buffer.from(utf16le).swap16()
  const codeUnits = Array.from({ length: value.length }, (_, i) => value.charCodeAt(i))
  const codePoints = [...value].map((char) => char.codePointAt(0)!)
  const texts = [
    ...characterTexts(value),
    // UTF-16 without the zero byte at its outer end (ASCII's high byte): either byte order is
    // then the same bytes, and no form reaches past the encoding into the text after it.
    ...[utf8, utf16le.subarray(0, -1), utf16be.subarray(1)].flatMap((bytes) =>
      alignedEncodings(bytes, 3, 4, (data) => data.toString('base64'))
    ),
    ...BASE32_ALPHABETS.flatMap((alphabet) =>
      alignedEncodings(utf8, 5, 8, (data) => base32(data, alphabet))
    )
  ]
  const forms: SecretForms = {
    alnum: texts.map((text) => text.replace(NOT_ALNUM, '').toLowerCase()),
    hex: [
      utf8.toString('hex'),
      utf16be.toString('hex'),
      utf16le.toString('hex'),
      utf32(codePoints, 'BE'),
      utf32(codePoints, 'LE')
    ],
    digits: [
      codeUnits.map(String).join(''),
      [...utf8].map((b) => b.toString(8).padStart(3, '0')).join('')
    ]
  }
  for (const reading of Object.keys(forms) as Reading[])
    forms[reading] = [...new Set(forms[reading])].filter((form) => form.length >= MIN_FORM)
  return forms
}

const ESCAPE = '\u001b'
const NOT_ALNUM = /[^a-z0-9]+/gi
// A `0x` prefix is one only where a number starts: in `\x30\x31` the 0 is a digit.
const NOT_HEX = /(?<![a-z0-9])0x(?=[0-9a-f])|[^0-9a-f]+/gi
const NOT_DIGIT = /[^0-9]+/g

/**
 * The three readings of a text, without its ANSI escape sequences (a colour code inside a secret
 * splits it like any separator), ASCII letters lower-cased. The views are made by the regex
 * engine; where a view's character came from is worked out only when a form is found in it,
 * which is rare.
 */
export class TextReadings {
  readonly views: Record<Reading, string>
  private readonly plain: string
  private readonly skips: Array<[number, number]>
  private readonly origins = new Map<Reading, Int32Array>()

  constructor(text: string) {
    this.skips = text.includes(ESCAPE) ? escapeSequences(text) : []
    this.plain = this.skips.length > 0 ? text.replace(ansiRegex(), '') : text
    const alnum = this.plain.replace(NOT_ALNUM, '').toLowerCase()
    this.views = {
      alnum,
      hex: this.plain.replace(NOT_HEX, '').toLowerCase(),
      digits: alnum.replace(NOT_DIGIT, '')
    }
  }

  /** Where the forms occur in the text, as [start, end) of the original text. */
  spans(reading: Reading, forms: readonly string[]): Array<[number, number]> {
    const view = this.views[reading]
    const spans: Array<[number, number]> = []
    for (const form of forms) {
      for (let at = view.indexOf(form); at >= 0; at = view.indexOf(form, at + form.length)) {
        const origin = this.origin(reading)
        spans.push([this.inText(origin[at]!), this.inText(origin[at + form.length - 1]!) + 1])
      }
    }
    return spans
  }

  /** For each character of a view, its index in the plain text (the views' rules, by hand). */
  private origin(reading: Reading): Int32Array {
    const known = this.origins.get(reading)
    if (known) return known
    const { plain } = this
    const origin = new Int32Array(this.views[reading].length)
    let length = 0
    for (let i = 0; i < plain.length; i++) {
      const code = plain.charCodeAt(i)
      const keep =
        reading === 'alnum'
          ? isAlnum(code)
          : reading === 'digits'
            ? code >= ZERO && code <= NINE
            : isHex(code) && !(code === ZERO && this.hexPrefixAt(i))
      if (keep) origin[length++] = i
    }
    this.origins.set(reading, origin)
    return origin
  }

  /** NOT_HEX's `0x`: the 0 at i starts a number and `x` and a hex digit follow. */
  private hexPrefixAt(i: number): boolean {
    const { plain } = this
    return (
      (i === 0 || !isAlnum(plain.charCodeAt(i - 1))) &&
      (plain.charCodeAt(i + 1) | 32) === LOWER_X &&
      isHex(plain.charCodeAt(i + 2))
    )
  }

  /** An index of the plain text as an index of the text (escape sequences put back). */
  private inText(index: number): number {
    let shifted = index
    for (const [start, end] of this.skips) {
      if (start > shifted) break
      shifted += end - start
    }
    return shifted
  }
}

const ZERO = 48
const NINE = 57
const LOWER_A = 97
const LOWER_F = 102
const LOWER_X = 120
const LOWER_Z = 122

function isAlnum(code: number): boolean {
  return (
    (code >= ZERO && code <= NINE) ||
    (code >= 65 && code <= 90) ||
    (code >= LOWER_A && code <= LOWER_Z)
  )
}

function isHex(code: number): boolean {
  const lower = code | 32
  return (code >= ZERO && code <= NINE) || (isAlnum(code) && lower >= LOWER_A && lower <= LOWER_F)
}

/** [start, end) of each ANSI escape sequence. */
function escapeSequences(text: string): Array<[number, number]> {
  return [...text.matchAll(ansiRegex())].map((match) => [
    match.index,
    match.index + match[0].length
  ])
}

/**
 * The encodings of `bytes` behind every prefix length an encoder's block allows (0 to block-1
 * bytes before it), cut to the characters that depend on the value alone; plus the whole
 * encoding, padding included.
 */
function alignedEncodings(
  bytes: Buffer,
  block: number,
  chars: number,
  encode: (data: Buffer) => string
): string[] {
  const bits = (8 * block) / chars
  const texts = [encode(bytes)]
  for (let offset = 0; offset < block; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes])
    const from = Math.ceil((8 * offset) / bits)
    const to = Math.floor((8 * (offset + bytes.length)) / bits)
    texts.push(encode(padded).slice(from, to))
  }
  return texts
}

/** RFC 4648 base32 (or another alphabet of 32), padded with `=`. */
export function base32(bytes: Uint8Array, alphabet = BASE32): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff
    bits += 8
    while (bits >= 5) {
      out += alphabet[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31]
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=')
}

/** The value as characters: as written, rot13, rot18, rot47, each reversed; JSON and URL escaped. */
function characterTexts(value: string): string[] {
  return [
    ...[value, rot13(value), rot18(value), rot47(value)].flatMap((text) => [
      text,
      [...text].reverse().join('')
    ]),
    JSON.stringify(value).slice(1, -1),
    encodeURIComponent(value)
  ]
}

/**
 * For a value made mostly of punctuation (`p@ss-w0rd!`), whose letters and digits alone are too
 * few to search for: its character forms as regular expressions, in any case, with one separator
 * of 1-3 characters repeated between all characters (captured once and referred back to, so the
 * search stays linear).
 */
export function spacedPatterns(value: string): RegExp[] {
  if (value.length < MIN_FORM) return []
  const escape = (char: string) => char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
  return [...new Set(characterTexts(value))]
    .filter((text) => text.replace(NOT_ALNUM, '').length < MIN_FORM && text.length >= MIN_FORM)
    .map((text) => {
      const [first, second, ...others] = [...text].map(escape)
      const tail = others.map((char) => `(?:\\1)${char}`).join('')
      return new RegExp(`${first}([^A-Za-z0-9]{1,3})?${second}${tail}`, 'gi')
    })
}

function utf32(codePoints: readonly number[], order: 'BE' | 'LE'): string {
  const bytes = Buffer.alloc(4 * codePoints.length)
  codePoints.forEach((point, i) =>
    order === 'BE' ? bytes.writeUInt32BE(point, 4 * i) : bytes.writeUInt32LE(point, 4 * i)
  )
  return bytes.toString('hex')
}

/** rot13 on letters and rot5 on digits. */
function rot18(text: string): string {
  return rot13(text).replace(/[0-9]/g, (digit) => String((Number(digit) + 5) % 10))
}

export function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (char) => {
    const base = char <= 'Z' ? 65 : 97
    return String.fromCharCode(((char.charCodeAt(0) - base + 13) % 26) + base)
  })
}

function rot47(text: string): string {
  return text.replace(/[!-~]/g, (char) =>
    String.fromCharCode(33 + ((char.charCodeAt(0) - 33 + 47) % 94))
  )
}
