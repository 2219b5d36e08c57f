import { InvalidInputError } from '../contract/index.js'

const AZURE_HOST = /\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i
// Headers the client sets itself; letting a setting override them would bypass the key rules.
const RESERVED_HEADERS = new Set(['authorization', 'content-type', 'content-length', 'host'])

/**
 * The base URL the SDK is given. An Azure resource URL without a path gets the v1 path
 * (`/openai/v1`), so `https://<resource>.openai.azure.com` works as typed; the dated
 * deployment URLs need `api-version` and the `api-key` header, which this client never sends.
 */
export function endpointUrl(baseUrl: string): string {
  const url = new URL(baseUrl)
  const path = url.pathname.replace(/\/+$/, '')
  if (AZURE_HOST.test(url.hostname)) {
    if (/\/openai\/deployments\//i.test(path) || url.searchParams.has('api-version')) {
      throw new InvalidInputError(
        'base-url is a dated Azure OpenAI deployment URL; use the v1 endpoint instead: ' +
          `https://${url.hostname}/openai/v1 (the deployment name goes in "model").`,
        { field: 'base-url' }
      )
    }
    if (path === '' || path === '/openai') url.pathname = '/openai/v1'
  }
  return url.toString().replace(/\/+$/, '')
}

/** `Name: value` lines (the `model-headers` setting) as a header record. */
export function parseHeaderLines(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [index, line] of lines.entries()) {
    const colon = line.indexOf(':')
    const name = colon > 0 ? line.slice(0, colon).trim() : ''
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new InvalidInputError(
        `model-headers: line ${index + 1} is not a "Name: value" header line.`,
        { field: 'model-headers' }
      )
    }
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      throw new InvalidInputError(
        `model-headers: the ${name} header is set by Patchsmith itself (the key goes in "api-key").`,
        { field: 'model-headers' }
      )
    }
    headers[name] = line.slice(colon + 1).trim()
  }
  return headers
}

/** What a log may show of a secret: its last two characters, and only when it is long enough. */
export function secretHint(secret: string): string {
  return secret.length >= 8 ? `…${secret.slice(-2)}` : '(set)'
}
