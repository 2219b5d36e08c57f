import type { Git } from './git.js'

export interface PushAuth {
  env: Record<string, string>
  /** The encoded header value: register it as a secret so logs mask it too. */
  secret: string
}

/**
 * Hands the token to the push process only, through git's environment config, so no
 * credential is ever written into `.git/config`. When actions/checkout already persisted an
 * auth header for the host, that one is used (a second Authorization header breaks the push).
 */
export async function pushAuth(
  git: Git,
  remote: string,
  token: string | undefined
): Promise<PushAuth | undefined> {
  if (!token) return undefined
  const url = await git.remoteUrl(remote)
  if (!/^https?:\/\//i.test(url)) return undefined
  const { protocol, host } = new URL(url)
  const key = `http.${protocol}//${host}/.extraheader`
  if ((await git.configValues(key)).length > 0) return undefined
  const secret = Buffer.from(`x-access-token:${token}`).toString('base64')
  return {
    env: {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: key,
      GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${secret}`
    },
    secret
  }
}
