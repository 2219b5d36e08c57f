export interface PushAuth {
  /** Environment for the processes that talk to the remote, and for nothing else. */
  env: Record<string, string>
  /** The encoded header value: register it as a secret so logs mask it too. */
  secret: string
}

/**
 * Hands the token to the commands that talk to the remote (ls-remote, fetch, push) through
 * git's environment config, so no credential is ever written into `.git/config`. The header is
 * scoped to the GitHub server, so a remote elsewhere never receives it. The empty value first
 * clears any header actions/checkout persisted for that server: two Authorization headers make
 * GitHub refuse the push.
 */
export function pushAuth(
  token: string | undefined,
  serverUrl = process.env.GITHUB_SERVER_URL || 'https://github.com',
  env: NodeJS.ProcessEnv = process.env
): PushAuth | undefined {
  if (!token) return undefined
  let origin: string
  try {
    const url = new URL(serverUrl)
    if (!/^https?:$/.test(url.protocol)) return undefined
    origin = url.origin
  } catch {
    return undefined
  }
  const key = persistedHeaderKey(origin)
  const secret = Buffer.from(`x-access-token:${token}`).toString('base64')
  // After any entries the environment already has, which the remote commands inherit.
  const first = Number.parseInt(env.GIT_CONFIG_COUNT ?? '', 10) || 0
  return {
    env: {
      GIT_CONFIG_COUNT: String(first + 2),
      [`GIT_CONFIG_KEY_${first}`]: key,
      [`GIT_CONFIG_VALUE_${first}`]: '',
      [`GIT_CONFIG_KEY_${first + 1}`]: key,
      [`GIT_CONFIG_VALUE_${first + 1}`]: `AUTHORIZATION: basic ${secret}`
    },
    secret
  }
}

/**
 * The header key actions/checkout persists for the server (`persist-credentials: true`):
 * exactly the key pushAuth sets, so the push's own header replaces it (a per-URL key outranks
 * a less specific one, so only the same key can). Any other repository http.* key is refused.
 */
export function persistedHeaderKey(
  serverUrl = process.env.GITHUB_SERVER_URL || 'https://github.com'
): string {
  let origin = serverUrl
  try {
    origin = new URL(serverUrl).origin
  } catch {
    // matched as written: a server URL that does not parse gets no token anyway
  }
  return `http.${origin}/.extraheader`
}
