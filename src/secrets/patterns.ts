/**
 * Pattern rules for secrets, ported from gitleaks (`config/gitleaks.toml`, MIT) and secretlint
 * (`@secretlint/secretlint-rule-preset-recommend`, MIT) with Go's inline flags rewritten for
 * JavaScript. Every rule redacts in outgoing text; rules marked
 * `commit` are precise enough to stop a commit that adds a match.
 */
interface SecretRule {
  id: string
  pattern: RegExp
  /** Redact only this capture group (the value after a key name), not the whole match. */
  group?: number
  /** Minimum Shannon entropy of the redacted text, for generic rules. */
  entropy?: number
  /** Fail a commit whose added lines match. */
  commit: boolean
  /** Require a digit, an upper- and a lower-case letter (random blobs have all three). */
  mixed?: boolean
}

const rule = (id: string, pattern: RegExp, extra: Partial<SecretRule> = {}): SecretRule => ({
  id,
  pattern,
  commit: true,
  ...extra
})

export const SECRET_RULES: readonly SecretRule[] = [
  rule(
    'private-key',
    /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|$)/g
  ),
  rule('github-pat', /\bghp_[0-9A-Za-z]{36}\b/g),
  rule('github-oauth', /\bgho_[0-9A-Za-z]{36}\b/g),
  rule('github-app-token', /\b(?:ghu|ghs)_[0-9A-Za-z]{36}\b/g),
  rule('github-refresh-token', /\bghr_[0-9A-Za-z]{36}\b/g),
  rule('github-fine-grained-pat', /\bgithub_pat_\w{82}\b/g),
  rule('gitlab-pat', /\bglpat-[\w-]{20}\b/g),
  rule('gitlab-cicd-job-token', /\bglcbt-[0-9A-Za-z]{1,5}_[\w-]{20}\b/g),
  rule('aws-access-key-id', /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g),
  rule('aws-secret-key', /aws.{0,20}?['"=:\s]([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi, {
    group: 1,
    entropy: 3.5
  }),
  rule('aws-bedrock-api-key', /\bABSK[A-Za-z0-9+/]{109,269}={0,2}/g),
  rule('gcp-api-key', /\bAIza[\w-]{35}\b/g),
  rule(
    'gcp-service-account',
    /"type"\s*:\s*"service_account"[\s\S]{0,2000}?"private_key"\s*:\s*"[^"]*"/g
  ),
  rule(
    'azure-ad-client-secret',
    /(?:^|[\\'"`\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?=$|[\\'"`\s<),])/g,
    { group: 1 }
  ),
  rule('npm-access-token', /\bnpm_[A-Za-z0-9]{36}\b/gi),
  rule('npmrc-auth-token', /_authToken\s*=\s*(\S+)/g, { group: 1 }),
  rule('pypi-upload-token', /pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}/g),
  rule(
    'openai-api-key',
    /\bsk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}\b/g
  ),
  rule('anthropic-api-key', /\bsk-ant-[A-Za-z0-9_-]{20,}/g),
  rule('openai-like-api-key', /\bsk-(?:proj-)?[A-Za-z0-9_-]{40,}\b/g),
  rule('huggingface-access-token', /\bhf_[A-Za-z]{34}\b/g),
  rule('groq-api-key', /\bgsk_[A-Za-z0-9]{52}\b/g),
  rule('perplexity-api-key', /\bpplx-[A-Za-z0-9]{48}\b/g),
  rule('slack-token', /\bxox[abposre]-[0-9A-Za-z-]{10,}/g),
  rule(
    'slack-webhook',
    /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/]{43,56}/g
  ),
  rule('stripe-access-token', /\b(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}\b/g),
  rule('sendgrid-api-token', /\bSG\.[A-Za-z0-9=_.-]{66}\b/g),
  rule('twilio-api-key', /\bSK[0-9a-fA-F]{32}\b/g),
  rule('hashicorp-vault-token', /\bhvs\.[\w-]{90,120}\b/g),
  rule('doppler-token', /\bdp\.pt\.[A-Za-z0-9]{43}\b/g),
  rule('databricks-token', /\bdapi[a-f0-9]{32}(?:-\d)?\b/g),
  rule('digitalocean-token', /\bdop_v1_[a-f0-9]{64}\b/g),
  rule('heroku-token', /\bHRKU-AA[\w-]{58}\b/g),
  rule('shopify-token', /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g),
  rule('linear-api-key', /\blin_api_[A-Za-z0-9]{40}\b/g),
  rule('1password-token', /\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}/g),
  rule('age-secret-key', /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/g),
  rule('grafana-token', /\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b/g),
  rule('sentry-token', /\bsntryu_[a-f0-9]{64}\b/g),
  rule('postman-api-key', /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/gi),
  rule('docker-pat', /\bdckr_pat_[A-Za-z0-9_-]{27,}\b/g),
  rule('jwt', /\bey[A-Za-z0-9]{17,}\.ey[A-Za-z0-9/\\_-]{17,}\.(?:[A-Za-z0-9/\\_-]{10,}={0,2})?/g),
  // `scheme://user:password@host`: only the password is redacted, so the URL stays readable.
  rule('url-credentials', /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/"'`]*:([^\s@/"'`]{3,})@/gi, {
    group: 1
  }),
  rule(
    'http-auth-header',
    /\b(?:authorization|proxy-authorization|x-api-key|api-key|x-auth-token)\s*[:=]\s*(?:(?:basic|bearer|token)\s+)?([^\s'"\\,;]{8,})/gi,
    { group: 1 }
  ),
  rule('docker-auth', /"auth"\s*:\s*"([A-Za-z0-9+/=]{16,})"/g, { group: 1 }),
  rule(
    'kubernetes-secret',
    /\bkind:\s*Secret\b[\s\S]{0,400}?\b(?:data|stringData):[^\n]*\n((?:[ \t]+[^\n]*\n?)+)/g,
    { group: 1, commit: false }
  ),
  // gitleaks generic-api-key: a key-like name assigned a value; only redacted when the value
  // looks random. In commits only quoted literals count, so `token = process.env.TOKEN` passes.
  rule(
    'generic-secret',
    /(?:access|auth|api|credential|creds|key|passw(?:or)?d|secret|token)[\w.-]{0,20}['"]?\s*(?:=|:|:=|=>)\s*['"`]?([\w.=+/-]{10,150})/gi,
    { group: 1, entropy: 3.5, commit: false }
  ),
  rule(
    'generic-secret-literal',
    /(?:access|auth|api|credential|creds|key|passw(?:or)?d|secret|token)[\w.-]{0,20}['"]?\s*(?:=|:|:=|=>)\s*(['"`])([\w.=+/-]{12,150})\1/gi,
    { group: 2, entropy: 3.5 }
  ),
  rule(
    'high-entropy-base64',
    /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g,
    {
      entropy: 4.5,
      commit: false,
      mixed: true
    }
  )
]

const PLACEHOLDER =
  /example|sample|dummy|placeholder|changeme|change_me|your[_-]|xxxx|\*\*\*|\$\{|<[a-z_]+>|redacted/i

interface SecretMatch {
  rule: string
  /** Offsets of the secret itself in the text. */
  start: number
  end: number
}

/** Every match of the rules in the text (overlaps included); generic rules gated by entropy. */
export function findSecrets(
  text: string,
  rules: readonly SecretRule[] = SECRET_RULES
): SecretMatch[] {
  const found: SecretMatch[] = []
  for (const secretRule of rules) {
    for (const match of text.matchAll(secretRule.pattern)) {
      const group = secretRule.group ?? 0
      const value = match[group]
      if (value === undefined || value.length === 0) continue
      const start = match.index! + (group === 0 ? 0 : match[0].indexOf(value))
      if (secretRule.mixed && !(/\d/.test(value) && /[A-Z]/.test(value) && /[a-z]/.test(value)))
        continue
      if (secretRule.entropy !== undefined) {
        if (shannonEntropy(value) < secretRule.entropy || PLACEHOLDER.test(value)) continue
        if (/^[a-z_.]+$/i.test(value) || /^[\d.]+$/.test(value)) continue
      }
      found.push({ rule: secretRule.id, start, end: start + value.length })
    }
  }
  return found
}

/** Replaces each secret with `[REDACTED:<rule>]`; overlapping matches are redacted once. */
export function redactPatterns(text: string): string {
  const matches = findSecrets(text).sort((a, b) => a.start - b.start || b.end - a.end)
  let out = ''
  let cursor = 0
  for (const match of matches) {
    if (match.end <= cursor) continue
    const start = Math.max(match.start, cursor)
    out += text.slice(cursor, start) + (start === match.start ? `[REDACTED:${match.rule}]` : '')
    cursor = match.end
  }
  return out + text.slice(cursor)
}

function shannonEntropy(text: string): number {
  const counts = new Map<string, number>()
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1)
  let entropy = 0
  for (const count of counts.values()) {
    const p = count / text.length
    entropy -= p * Math.log2(p)
  }
  return entropy
}
