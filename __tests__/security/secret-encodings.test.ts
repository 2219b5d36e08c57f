/**
 * Issue 24 point 10: a known secret is masked in every encoding of the classes below, by one
 * general mechanism (encodings × normalised readings), not a rule per case. Each class is tried
 * in several spellings; none of them was masked before.
 */
import { describe, expect, it } from 'vitest'
import { base32, rot13, SecretMasker } from '../../src/secrets/index.js'

const TOKEN = 'ghs_CANARYcanary0123456789abcdefghijklmn'
const API_KEY = 'sk-ant-api03-CANARYcanaryCANARYcanary0123456789'
const EXTRA = 'zX9!canary-Q7'

const masker = () =>
  SecretMasker.forRun({ apiKey: API_KEY, githubToken: TOKEN, env: { EXTRA_SECRET: EXTRA } })

const bytes = (value: string) => [...Buffer.from(value)]
const codeUnits = (value: string) => [...value].map((char) => char.charCodeAt(0))
const hex2 = (n: number) => n.toString(16).padStart(2, '0')
const hex4 = (n: number) => n.toString(16).padStart(4, '0')
const swapCase = (value: string) =>
  [...value].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')
const mixedCase = (value: string) =>
  [...value].map((c, i) => (i % 3 === 0 ? c.toUpperCase() : c.toLowerCase())).join('')

/** Each class of encoding, spelled several ways. */
const CLASSES: Record<string, (value: string) => string[]> = {
  base32: (v) => [
    base32(Buffer.from(v)),
    base32(Buffer.from(v)).replace(/=+$/, ''),
    base32(Buffer.from(v)).toLowerCase(),
    base32(Buffer.from(`x-access-token:${v}`)),
    base32(Buffer.from(`ab${v}`))
      .replace(/=+$/, '')
      .toLowerCase(),
    base32(Buffer.from(v), '0123456789ABCDEFGHIJKLMNOPQRSTUV'),
    base32(Buffer.from(v), '0123456789ABCDEFGHJKMNPQRSTVWXYZ').replace(/=+$/, ''),
    base32(Buffer.from(`x${v}`), 'ybndrfg8ejkmcpqxot1uwisza345h769')
  ],
  'base64 of UTF-16': (v) => [
    Buffer.from(v, 'utf16le').toString('base64'),
    Buffer.from(`:${v}`, 'utf16le').toString('base64url'),
    Buffer.from(v, 'utf16le').swap16().toString('base64')
  ],
  rot13: (v) => [
    rot13(v),
    rot13(v).toUpperCase(),
    `prefix-${rot13(v)}-suffix`,
    [...rot13(v)].reverse().join(''),
    rot13(v).replace(/[0-9]/g, (d) => String((Number(d) + 5) % 10))
  ],
  'letter case': (v) => [v.toUpperCase(), v.toLowerCase(), swapCase(v), mixedCase(v)],
  separators: (v) =>
    ['.', ' ', '-', '_', ',', ', ', ' | ', '\t', '::', '/', '\n'].map((sep) => [...v].join(sep)),
  'full percent-encoding': (v) => [
    bytes(v)
      .map((b) => `%${hex2(b)}`)
      .join(''),
    bytes(v)
      .map((b) => `%${hex2(b).toUpperCase()}`)
      .join('')
  ],
  'UTF-16 hex': (v) => [
    codeUnits(v)
      .map((u) => `\\u${hex4(u)}`)
      .join(''),
    codeUnits(v)
      .map((u) => `\\u${hex4(u).toUpperCase()}`)
      .join(''),
    codeUnits(v).map(hex4).join(''),
    codeUnits(v)
      .map((u) => hex4(u).replace(/^(..)(..)$/, '$2$1'))
      .join(''),
    Buffer.from(v, 'utf16le').toString('hex').toUpperCase(),
    codeUnits(v)
      .map((u) => `U+${hex4(u).toUpperCase()}`)
      .join(' '),
    codeUnits(v)
      .map((u) => `\\U${u.toString(16).padStart(8, '0')}`)
      .join(''),
    codeUnits(v).map(hex4).join(' ')
  ],
  'other escapes': (v) => [
    bytes(v)
      .map((b) => `\\x${hex2(b)}`)
      .join(''),
    bytes(v)
      .map((b) => `0x${hex2(b)}`)
      .join(', '),
    bytes(v)
      .map((b) => `&#x${hex2(b)};`)
      .join(''),
    codeUnits(v)
      .map((u) => `&#${u};`)
      .join(''),
    `String.fromCharCode(${codeUnits(v).join(', ')})`,
    bytes(v)
      .map((b) => `\\${b.toString(8).padStart(3, '0')}`)
      .join(''),
    bytes(v).map(hex2).join(':')
  ]
}

describe('SecretMasker: encoded forms of every known secret (issue 24, point 10)', () => {
  for (const [name, encode] of Object.entries(CLASSES)) {
    it.each([
      ['the API key', API_KEY],
      ['the GitHub token', TOKEN],
      ['a secret-named variable', EXTRA]
    ])(`masks %s as ${name}`, (_who, secret) => {
      const run = masker()
      for (const form of encode(secret)) {
        const masked = run.mask(`before ${form} after`)
        expect(masked, form).not.toContain(form)
        expect(masked, form).toMatch(/^before .*\*\*\*.* after$/s)
        expect(run.countKnown(form), form).toBeGreaterThan(0)
        // In JSON (the result file) the value is masked too.
        const json = JSON.parse(run.mask(JSON.stringify({ stdout: form }))) as { stdout: string }
        expect(json.stdout, form).not.toContain(form)
      }
    })
  }

  it('masks a value made mostly of punctuation in any case and spelled out', () => {
    const value = 'p@ss-w0rd!#'
    const run = SecretMasker.forRun({ env: { DB_PASSWORD: value } })
    for (const form of [
      value.toUpperCase(),
      rot13(value),
      [...value].join('.'),
      [...value].join(' '),
      [...rot13(value)].reverse().join('')
    ])
      expect(run.mask(`before ${form} after`), form).toBe('before *** after')
    expect(run.mask('before pass word after')).toBe('before pass word after')
  })

  it('knows the values validation-env hands to commands, whatever their names', () => {
    const url = 'postgres://app:s3cretPass@db:5432/app'
    const run = SecretMasker.forRun({
      env: { DATABASE_URL: url, NODE_ENV: 'test', CERT: '/etc/ssl/certs/ca.pem' },
      validationEnv: ['DATABASE_URL', 'NODE_ENV', 'CERT', 'MISSING']
    })
    expect(run.mask(`url=${rot13(url)}`)).toBe('url=***')
    expect(run.mask('NODE_ENV=test /etc/ssl/certs/ca.pem')).toBe(
      'NODE_ENV=test /etc/ssl/certs/ca.pem'
    )
    expect(SecretMasker.forRun({ env: { DATABASE_URL: url } }).maskKnown(rot13(url))).toBe(
      rot13(url)
    )
  })

  it('still shows the API key by its last two characters, and masks its other spellings whole', () => {
    const run = masker()
    expect(run.mask(`key=${API_KEY}`)).toBe(`key=***${API_KEY.slice(-2)}`)
    expect(run.mask(`key=${API_KEY.toUpperCase()}`)).toBe('key=***')
  })

  it('leaves ordinary output alone', () => {
    const run = masker()
    const text = [
      'commit 0123456789abcdef0123456789abcdef01234567',
      'FAIL src/canary.test.ts > canary 0123 (12 ms)',
      '2024-01-01T00:00:00Z 103 104 115 95 67 65 78',
      'const canary = "ghs_" + process.env.TOKEN',
      '%67%68%73 sk-ant-api03 ghs_CANARY',
      'abcdefghijklmnopqrstuvwxyz 0123456789'
    ].join('\n')
    expect(run.mask(text)).toBe(text)
    expect(run.countKnown(text)).toBe(0)
  })

  it('masks a secret at the end of 1 MB of ordinary output and leaves the rest as it was', () => {
    // How long this takes is a figure of bench:masking, beside its anchor (one regex pass).
    const run = masker()
    run.add('hunter2hunter2')
    const line = 'src/widget.test.ts > renders 0x1f 2024-01-01T00:00:00Z ok 123 456, done [info]\n'
    const ordinary = line.repeat(Math.ceil(1_000_000 / line.length))
    expect(run.maskKnown(`${ordinary}${rot13(TOKEN)}\n`)).toBe(`${ordinary}***\n`)
  })
})
