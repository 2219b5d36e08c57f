import { hostPath, trustedOnHost, trustedProgramValue } from '../sandbox/index.js'

// What a local git process needs from the parent: where programs and home are, the locale, the
// temp folder, an identity the user set, git's own tracing and the user's command-line config.
const LOCAL =
  /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|LC_[A-Z_]+|TZ|TMPDIR|TMP|TEMP|XDG_CONFIG_HOME|EMAIL|SYSTEMROOT|WINDIR|PATHEXT|COMSPEC|GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|GIT_EXEC_PATH|GIT_TRACE[A-Z0-9_]*|GIT_CONFIG_(PARAMETERS|COUNT|KEY_\d+|VALUE_\d+)|GIT_CEILING_DIRECTORIES)$/

// And what a command that talks to a remote needs to reach it and to authenticate as the user
// set it up (ssh agent, proxies, certificates, askpass, a gh or GCM credential helper).
const REMOTE =
  /^(SSH_AUTH_SOCK|SSH_AGENT_PID|SSH_ASKPASS|GIT_ASKPASS|GIT_SSH|GIT_SSH_COMMAND|GIT_SSH_VARIANT|GIT_SSL_[A-Z_]+|GIT_HTTP_[A-Z_]+|GIT_CURL_VERBOSE|GIT_PROXY_[A-Z_]+|SSL_CERT_FILE|SSL_CERT_DIR|CURL_CA_BUNDLE|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy|GH_TOKEN|GITHUB_TOKEN|GH_ENTERPRISE_TOKEN|GITHUB_ENTERPRISE_TOKEN|GH_HOST|GH_CONFIG_DIR|GCM_[A-Z_]+|XDG_RUNTIME_DIR|DBUS_SESSION_BUS_ADDRESS|DISPLAY)$/

// Of those, the ones that name a program git starts on the host: never one in the work tree
// (attack round 17). GIT_EXEC_PATH, the folder it takes its own from, is a trusted folder or none.
const PROGRAM = /^(SSH_ASKPASS|GIT_ASKPASS|GIT_SSH|GIT_SSH_COMMAND|GIT_PROXY_COMMAND)$/

/**
 * The environment of Patchsmith's git processes, by allowlist: no model key, `INPUT_*`,
 * `ACTIONS_*`, file-command variable or anything else of the action's. A remote command also
 * gets what a push needs; its token comes from push-auth in the command's own `env`.
 */
export function gitEnv(
  env: NodeJS.ProcessEnv,
  remote: boolean,
  /** Where git runs: its PATH (ssh, a credential helper) keeps no entry into it (hostPath). */
  workTree: string
): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    if (PROGRAM.test(name) && !trustedProgramValue(value, [workTree])) continue
    // A relative one is made absolute from git's folder, the work tree (attack round 18).
    if (name === 'GIT_EXEC_PATH' && !trustedOnHost(value, [workTree])) continue
    if (LOCAL.test(name) || (remote && REMOTE.test(name))) result[name] = value
  }
  return { ...result, PATH: hostPath(env.PATH, [workTree]) }
}

// Programs git would start for a pager or an editor: `cat` and `:` are git's own no-ops.
export const NO_PROGRAMS = { GIT_PAGER: 'cat', GIT_EDITOR: ':', GIT_SEQUENCE_EDITOR: ':' }

/**
 * The whole environment of a command Git.exec starts (not in the hooks' sandbox): the
 * allowlist, no prompt, no system config, the identity fallback as the global one, the
 * command's own variables, and the seal's config parameters last, so they win.
 */
export function sealedEnv(
  workTree: string,
  options: { network?: boolean; hooks?: boolean; env?: Record<string, string> },
  configParameters: string,
  globalConfig: string
): Record<string, string> {
  return {
    ...gitEnv(process.env, Boolean(options.network), workTree),
    GIT_TERMINAL_PROMPT: '0',
    // git 2.44 and later: no lazy fetch of a missing object behind a local command.
    GIT_NO_LAZY_FETCH: '1',
    // Sealed: no system config; the global one is the identity fallback alone.
    GIT_CONFIG_NOSYSTEM: '1',
    ...NO_PROGRAMS,
    // Messages are read (summary lines, "already exists"), so they must not be translated;
    // hooks keep the user's locale.
    ...(options.hooks ? {} : { LC_ALL: 'C' }),
    GIT_CONFIG_GLOBAL: globalConfig,
    ...options.env,
    GIT_CONFIG_PARAMETERS: configParameters
  }
}
