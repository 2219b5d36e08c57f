import { shellQuote } from './jail-command.js'

/**
 * The environment a sandboxed command gets, by allowlist: what shells, compilers and package
 * managers need to run, nothing the action holds (tokens, runner file commands, inputs).
 */

// Exact names every command may see.
const BASE_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'CI',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'RUNNER_OS',
  'RUNNER_ARCH',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'JAVA_HOME',
  'GOROOT',
  'GOPATH',
  'GOFLAGS',
  'GOPROXY',
  'GONOSUMDB',
  'GOPRIVATE',
  'GOTOOLCHAIN',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'RUSTFLAGS',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'PYENV_ROOT',
  'PYTHONPATH',
  'PYTHONHASHSEED',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONUNBUFFERED',
  'PYTHONIOENCODING',
  'pythonLocation',
  'Python_ROOT_DIR',
  'Python2_ROOT_DIR',
  'Python3_ROOT_DIR',
  'PKG_CONFIG_PATH',
  'LD_LIBRARY_PATH',
  'NVM_DIR',
  'VOLTA_HOME',
  'PNPM_HOME',
  'COREPACK_HOME',
  'COREPACK_ENABLE_DOWNLOAD_PROMPT',
  'NODE_ENV',
  'MAVEN_OPTS',
  'GRADLE_USER_HOME',
  'GRADLE_OPTS',
  'DOTNET_ROOT',
  'DOTNET_CLI_TELEMETRY_OPTOUT',
  'GEM_HOME',
  'GEM_PATH',
  'BUNDLE_PATH'
])
// Name families: locale, toolchain versions installed by setup-* actions, package-manager config.
const BASE_PREFIXES = [/^LC_/, /^JAVA_HOME_/, /^GOROOT_/, /^npm_config_/i, /^YARN_/, /^PIP_/]
// Even a listed family never passes a value named like a secret (npm_config__authToken, …).
const SECRET_NAME =
  /TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|CREDENTIAL|PRIVATE|_AUTH|^INPUT_|^ACTIONS_/i

/**
 * The allowlisted subset of `parent`, plus the names the workflow lists in `validation-env`
 * (which may carry what the tests need, a database URL say, because a maintainer chose them).
 */
export function validationEnv(
  parent: NodeJS.ProcessEnv,
  extraNames: readonly string[] = []
): Record<string, string> {
  const extra = new Set(extraNames)
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue
    const listed = BASE_NAMES.has(name) || BASE_PREFIXES.some((prefix) => prefix.test(name))
    if (extra.has(name) || (listed && !SECRET_NAME.test(name))) env[name] = value
  }
  // The base check puts a file back within the same second and often at the same size; Python's
  // bytecode cache is keyed on exactly those, so without this a base run can execute the draft's
  // code (and __pycache__ folders would land in the work tree as files validation wrote).
  env.PYTHONDONTWRITEBYTECODE ??= '1'
  // Outside CI npm asks the registry for a newer npm as it starts (0.2 s of CPU a command,
  // measured), which the jail's closed network can never answer.
  if (!Object.keys(env).some((name) => /^npm_config_update_notifier$/i.test(name)))
    env.npm_config_update_notifier = 'false'
  return env
}

/** Names that `validation-env` can never pass: the runner's own channels and credentials. */
export const FORBIDDEN_EXTRA_NAME =
  /^(GITHUB_(ENV|PATH|OUTPUT|STATE|STEP_SUMMARY|TOKEN)|ACTIONS_.*|INPUT_.*|RUNNER_TEMP)$/

/** Where the programs that build a jail look for others: never a folder of the work tree. */
const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/** What a program Patchsmith runs on the host beside a jail sees: nothing of the workflow's. */
export const HOST_ENV = { PATH: HOST_PATH, LC_ALL: 'C' }

/**
 * Names that make a program load or run something other than itself: the dynamic loader's and
 * glibc's (a library path with an empty entry names the working directory, the work tree), perl's
 * (the unshare backends' filter loader), and a shell's (the wrapping scripts; bash as /bin/sh
 * imports functions); POSIXLY_CORRECT changes how mount(8) reads its options.
 */
const LOADING_NAME =
  /^(LD_.*|MALLOC_.*|PERL.*|BASH_FUNC_.*|GCONV_PATH|GLIBC_TUNABLES|LOCPATH|NLSPATH|TZ|TZDIR|BASH_ENV|ENV|IFS|CDPATH|SHELLOPTS|BASHOPTS|POSIXLY_CORRECT|HOSTALIASES|RES_OPTIONS|LOCALDOMAIN)$/

/**
 * gettext reads LANGUAGE's entries as folder names under the locale tree, `../` too (outside
 * setuid programs): one naming a folder of the work tree would load a message catalog a command
 * left there into setpriv's or unshare's error messages, as root on the host.
 */
const loadingLanguage = (name: string, value: string) => name === 'LANGUAGE' && value.includes('/')

/**
 * A command's environment split in two. The programs that build its jail (bubblewrap, unshare,
 * setpriv, sudo, perl and the scripts around them, as root on the host where Patchsmith is)
 * get it without the names above and with a PATH of the system's folders: a validation command
 * could otherwise put a library or a `mkdir` in the work tree for the next command's jail to run
 * before the jail exists. The command gets them back as the first lines of its own shell, in
 * the jail (their values are paths and switches, shown in the jail's command line: no secret).
 */
export function jailEnvironment(env: Record<string, string>): {
  host: Record<string, string>
  restore: string
} {
  const host: Record<string, string> = {}
  const lines: string[] = []
  for (const [name, value] of Object.entries(env)) {
    if (name !== 'PATH' && !LOADING_NAME.test(name) && !loadingLanguage(name, value))
      host[name] = value
    // A name no shell can export (bash's exported functions) is not handed on at all.
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      lines.push(`export ${name}=${shellQuote(value)}`)
  }
  host.PATH = HOST_PATH
  return { host, restore: lines.map((line) => `${line}\n`).join('') }
}
