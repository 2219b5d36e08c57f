import { SecurityViolationError } from '../contract/index.js'
import { readStructured } from '../inputs/index.js'
import { githubClient } from '../github/index.js'

export const PERMISSION_LEVELS = ['none', 'read', 'triage', 'write', 'maintain', 'admin'] as const
type PermissionLevel = (typeof PERMISSION_LEVELS)[number]

interface ActorCheck {
  /** The triggering event's payload; its `sender` is who started the run. */
  eventPath?: string
  /** `owner/repo` */
  repository?: string
  /** GITHUB_API_URL */
  apiUrl?: string
  token?: string
  /** The least permission the sender must hold on the repository (`none`: no check). */
  required: PermissionLevel
  /** Bot logins allowed to start a run (bots are refused otherwise). */
  allowedBots: readonly string[]
}

interface Sender {
  login: string
  type?: string
}

/**
 * Anyone can open an issue; only a person with `required` permission may make Patchsmith act on
 * one (SECURITY.md T62). Runs without an event sender (the CLI, a local run) were started by
 * whoever runs them and are not checked.
 */
export async function assertActorAllowed(check: ActorCheck): Promise<void> {
  if (check.required === 'none') return
  const sender = eventSender(check.eventPath)
  if (!sender) return
  const refuse = (why: string, details: Record<string, unknown> = {}) =>
    new SecurityViolationError(`Refused to act for "${sender.login}": ${why}`, {
      rule: 'unauthorized-actor',
      actor: sender.login,
      ...details
    })
  if (sender.type === 'Bot' || /\[bot\]$/i.test(sender.login)) {
    if (check.allowedBots.some((bot) => bot.toLowerCase() === sender.login.toLowerCase())) return
    throw refuse('the run was started by a bot; list it in "allowed-bots" to let it.')
  }
  if (!check.token || !check.repository) {
    throw refuse(
      'its permission cannot be checked without "github-token" and GITHUB_REPOSITORY; ' +
        'give a token or set "require-actor-permission: none".'
    )
  }
  const permission = await permissionOf(
    sender.login,
    check.repository,
    check.token,
    check.apiUrl,
    refuse
  )
  if (rank(permission) < rank(check.required)) {
    throw refuse(
      `they have ${permission} permission on ${check.repository}, and Patchsmith acts only ` +
        `for ${check.required} or more ("require-actor-permission").`,
      { permission }
    )
  }
}

async function permissionOf(
  login: string,
  repository: string,
  token: string,
  apiUrl: string | undefined,
  refuse: (why: string) => Error
): Promise<PermissionLevel> {
  const [owner, repo] = repository.split('/') as [string, string]
  const client = await githubClient(token, { apiUrl, rateLimitRetries: 1, maxWaitSeconds: 10 })
  try {
    const { data } = await client.rest.repos.getCollaboratorPermissionLevel({
      owner,
      repo,
      username: login
    })
    const level = (data.role_name || data.permission || 'none').toLowerCase()
    return (PERMISSION_LEVELS as readonly string[]).includes(level)
      ? (level as PermissionLevel)
      : 'none'
  } catch (error) {
    if ((error as { status?: number }).status === 404) return 'none'
    throw refuse(`their permission could not be checked (${(error as Error).message}).`)
  }
}

function eventSender(eventPath: string | undefined): Sender | undefined {
  if (!eventPath) return undefined
  let payload: { sender?: Sender }
  try {
    payload = readStructured(eventPath, 'event', '/') as { sender?: Sender }
  } catch {
    return undefined // a missing or unreadable event is reported where the issue is read
  }
  const login = payload.sender?.login
  return typeof login === 'string' && login.length > 0
    ? { login, type: payload.sender?.type }
    : undefined
}

function rank(level: PermissionLevel): number {
  return PERMISSION_LEVELS.indexOf(level)
}
