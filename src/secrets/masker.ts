import {
  MIN_FORM,
  secretForms,
  spacedPatterns,
  TextReadings,
  type Reading,
  type SecretForms
} from './encodings.js'
import { redactPatterns } from './patterns.js'
import { maskSplitSecrets, replaceSpans } from './split-secrets.js'

interface SecretOptions {
  /** Characters of the raw value left visible after `***` (the API key shows its last two). */
  reveal?: number
}

const MIN_VALUE = 4
const READINGS: readonly Reading[] = ['alnum', 'hex', 'digits']
const MIN_ENCODED = 8
// Name segments that mark an environment variable as secret (`GITHUB_PATH` is not `PAT`).
const SECRET_SEGMENT =
  /^(TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PWD|PAT|KEY|KEYS|APIKEY|CREDENTIAL|CREDENTIALS|CREDS|AUTH|COOKIE|SESSION|PRIVATE|CERT|SIGNING)$/

const WORKING_DIRECTORIES = new Set(['PWD', 'OLDPWD'])
// git's command-line config names its keys in GIT_CONFIG_KEY_<n> (`remote.origin.pushurl`):
// masked, a refusal would name `***` as the key to remove.
const CONFIG_KEY_NAME = /^GIT_CONFIG_KEY_\d+$/
// A certificate file's or folder's path (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, AWS_CA_BUNDLE, ...):
// a path, not a secret; masked, it would hide paths in every log line of the job.
const CERTIFICATE_PATH = /^(\/|[A-Za-z]:[\\/])\S*(\.(pem|crt|cer|der)|[\\/]certs\/?)$/i

/**
 * Redacts secrets from any text that leaves the run. Known values are replaced with `***` in
 * every form they may take (secret-encodings.ts: raw, reversed, rot13, JSON and URL escaped,
 * base64, base64url, base32 at every alignment, so `basic base64("x-access-token:" + token)` is
 * caught too, hex, UTF-16, %XX, decimal; in any letter case and spelled out with a separator),
 * and split by control characters (split-secrets.ts); then the pattern rules of
 * secret-patterns.ts replace secret-looking text with `[REDACTED:<rule>]`.
 */
export class SecretMasker {
  /** The value and its plain encodings, for the runner's own masking and split secrets. */
  private readonly forms = new Map<string, string>()
  /** The forms of values the readings do not search (shorter than MIN_FORM). */
  private readonly shortForms = new Set<string>()
  /** Every secret's encodings as the normalised readings show them (secret-encodings.ts). */
  private readonly encoded: SecretForms = { alnum: [], hex: [], digits: [] }
  /** Punctuation-heavy values' character forms, as expressions (spacedPatterns). */
  private readonly spaced: RegExp[] = []

  /**
   * A masker that knows every secret of a run: the key, the token, secret-named variables and
   * the variables `validation-env` hands to commands (a maintainer passes a DATABASE_URL because
   * the tests need its password).
   */
  static forRun(secrets: {
    apiKey?: string
    githubToken?: string
    env?: NodeJS.ProcessEnv
    /** The `validation-env` names. */
    validationEnv?: readonly string[]
  }): SecretMasker {
    const masker = new SecretMasker()
    const env = secrets.env ?? {}
    masker.add(secrets.apiKey, { reveal: 2 })
    masker.add(secrets.githubToken)
    for (const value of secretEnvValues(env)) masker.add(value)
    for (const name of secrets.validationEnv ?? []) {
      const value = env[name]
      if (value && value.length >= 8 && !CERTIFICATE_PATH.test(value)) masker.add(value)
    }
    return masker
  }

  add(value: string | undefined, options: SecretOptions = {}): void {
    if (!value || value.length < MIN_VALUE) return
    const reveal = options.reveal && value.length >= 12 ? value.slice(-options.reveal) : ''
    this.forms.set(value, `***${reveal}`)
    for (const form of encodedForms(value)) if (!this.forms.has(form)) this.forms.set(form, '***')
    // Shorter values are searched as written only: their encodings are too short to be told
    // from chance in the normalised readings.
    if (value.length < MIN_FORM) {
      this.shortForms.add(value)
      encodedForms(value).forEach((form) => this.shortForms.add(form))
      return
    }
    this.spaced.push(...spacedPatterns(value))
    const forms = secretForms(value)
    for (const reading of READINGS)
      for (const form of forms[reading])
        if (!this.encoded[reading].includes(form)) this.encoded[reading].push(form)
  }

  /** Whether the text holds a known value as written or in one of its plain encodings. */
  holdsKnown(text: string): boolean {
    for (const value of this.forms.keys()) if (text.includes(value)) return true
    return false
  }

  /** How many times the text holds a known secret in any form (encoded, any case, spaced). */
  countKnown(text: string): number {
    return this.encodedSpans(text).length
  }

  /** Every form registered, for the runner's log masking (core.setSecret). */
  values(): string[] {
    return [...this.forms.keys()]
  }

  mask(text: string): string {
    // Text that is JSON (a serialized result or log) is masked value by value, so no
    // replacement can break its structure and commit diffs keep their context lines intact.
    if (/^[[{]/.test(text)) {
      const json = parseJson(text)
      if (json) return JSON.stringify(this.maskJson(json.value), null, json.indent)
    }
    return redactPatterns(this.maskKnown(text))
  }

  /** Known values only: for text that must stay byte-exact otherwise (a commit's diff). */
  maskKnown(text: string): string {
    let masked = text
    const ordered = [...this.forms].sort(([a], [b]) => b.length - a.length)
    for (const [value, replacement] of ordered) masked = masked.split(value).join(replacement)
    masked = replaceSpans(masked, this.encodedSpans(masked))
    // The readings skip control characters and escape sequences already; what is left for the
    // split search: a terminal's backspaces, and values too short for the readings.
    const split = masked.includes('\b')
      ? ordered
      : ordered.filter(([value]) => this.shortForms.has(value))
    return maskSplitSecrets(
      masked,
      split.map(([value]) => value)
    )
  }

  /** Where the text holds an encoded form of a known secret: [start, end) each, unmerged. */
  private encodedSpans(text: string): Array<[number, number]> {
    if (READINGS.every((reading) => this.encoded[reading].length === 0) && !this.spaced.length)
      return []
    const readings = new TextReadings(text)
    const spans = READINGS.flatMap((reading) => readings.spans(reading, this.encoded[reading]))
    for (const pattern of this.spaced)
      for (const match of text.matchAll(pattern))
        spans.push([match.index, match.index + match[0].length])
    return spans
  }

  /** A copy of a JSON value with every string masked; `diff` fields get known values only. */
  maskJson<T>(value: T): T {
    const walk = (item: unknown, key?: string): unknown => {
      if (typeof item === 'string') return key === 'diff' ? this.maskKnown(item) : this.mask(item)
      if (Array.isArray(item)) return item.map((entry) => walk(entry))
      if (item && typeof item === 'object')
        return Object.fromEntries(
          Object.entries(item).map(([name, entry]) => [this.mask(name), walk(entry, name)])
        )
      return item
    }
    return walk(value) as T
  }
}

/**
 * Values of environment variables whose names mark them as secrets (length ≥ 8). The shell's
 * PWD and OLDPWD are working directories, git's GIT_CONFIG_KEY_<n> config keys and certificate
 * paths are paths, not passwords.
 */
export function secretEnvValues(env: NodeJS.ProcessEnv): string[] {
  const values = new Set<string>()
  for (const [name, value] of Object.entries(env)) {
    if (
      !value ||
      value.length < 8 ||
      WORKING_DIRECTORIES.has(name) ||
      CONFIG_KEY_NAME.test(name) ||
      CERTIFICATE_PATH.test(value)
    )
      continue
    const segments = name.toUpperCase().split(/[^A-Z0-9]+/)
    if (segments.some((segment) => SECRET_SEGMENT.test(segment))) values.add(value)
  }
  return [...values]
}

/** The encoded forms of a value that could show up in output. */
export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value)
  const forms = new Set<string>([
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase()
  ])
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes])
    const from = Math.ceil((4 * offset) / 3)
    const to = Math.floor((8 * (offset + bytes.length)) / 6)
    forms.add(padded.toString('base64').slice(from, to))
    forms.add(padded.toString('base64url').slice(from, to))
  }
  forms.add(bytes.toString('base64'))
  forms.add([...value].reverse().join(''))
  forms.delete(value)
  return [...forms].filter((form) => form.length >= MIN_ENCODED)
}

/** Text that is JSON exactly as JSON.stringify writes it (compact or indented by 2). */
function parseJson(text: string): { value: unknown; indent: number } | undefined {
  try {
    const value: unknown = JSON.parse(text)
    if (JSON.stringify(value) === text) return { value, indent: 0 }
    if (JSON.stringify(value, null, 2) === text) return { value, indent: 2 }
  } catch {
    // not JSON: masked as text
  }
  return undefined
}
