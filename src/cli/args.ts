import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import {
  SETTING_KEYS,
  SETTING_KINDS,
  settingName,
  type RunConfigInput,
  type SettingKey
} from '../config.js'

export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** Short names kept for scripts; every action input also has its own flag of the same name. */
const ALIASES: Record<string, SettingKey> = {
  plan: 'fixPlan',
  triage: 'triageResult',
  tasks: 'taskFile',
  output: 'outputPath',
  'validation-command': 'validationCommands',
  pr: 'followUp'
}

// A secret on the command line is readable by every process on the machine (/proc/<pid>/cmdline),
// code that validation runs included: secrets come from the environment or a file instead.
const SECRET_FLAGS: Record<string, { key: SettingKey; variable: string }> = {
  'api-key': { key: 'apiKey', variable: 'OPENAI_API_KEY' },
  'github-token': { key: 'githubToken', variable: 'GITHUB_TOKEN' }
}

const FLAGS = new Map<string, SettingKey>([
  ...SETTING_KEYS.map((key) => [settingName(key), key] as const),
  ...Object.entries(ALIASES)
])

export interface CliInvocation {
  command: string
  settings: RunConfigInput
  help: boolean
  /** `--pull-request-body FILE`: where a green run's pull-request body is written. */
  pullRequestBody?: string
}

type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean; short?: string }

const OPTIONS: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h' },
  'pull-request-body': { type: 'string' },
  ...Object.fromEntries(
    [...FLAGS].map(([name, key]) => {
      const kind = SETTING_KINDS[key]
      return [name, kind === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: true }]
    })
  ),
  ...Object.fromEntries(
    Object.keys(SECRET_FLAGS).flatMap((name) => [
      [name, { type: 'string', multiple: true }],
      [`${name}-file`, { type: 'string', multiple: true }]
    ])
  )
}

/**
 * Parses `patchsmith run --flag value …` with node:util parseArgs. Flags: `--name value`,
 * `--name=value`, booleans as `--name`, `--no-name` or `--name=false`; list flags may repeat.
 */
export function parseCliArgs(argv: readonly string[]): CliInvocation {
  const settings: Record<string, unknown> = {}
  // parseArgs has no `--switch=value`; the text goes to the setting, which parses it.
  const args = argv.filter((arg) => {
    const [name, value] = splitFlag(arg)
    const key = FLAGS.get(name)
    if (value === undefined || !key || SETTING_KINDS[key] !== 'boolean') return true
    settings[key] = value
    return false
  })
  let parsed
  try {
    parsed = parseArgs({
      args,
      options: OPTIONS,
      strict: true,
      allowPositionals: true,
      allowNegative: true,
      tokens: true
    })
  } catch (error) {
    const message = (error as Error).message
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1]
    throw new UsageError(
      unknown
        ? `Unknown flag "${unknown}". Run "patchsmith --help" for the list.`
        : message.split('\n')[0]!
    )
  }
  const positionals = parsed.positionals
  if (positionals.length > 1) throw new UsageError(`Unexpected argument "${positionals[1]}".`)
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || token.name === 'help' || token.name === 'pull-request-body')
      continue
    const { name, rawName, value } = token
    const secret = SECRET_FLAGS[name]
    if (secret)
      throw new UsageError(
        `"--${name}" would put the secret on the command line, where every process can read it: set ${secret.variable} or pass --${name}-file FILE.`
      )
    const secretFile = SECRET_FLAGS[name.replace(/-file$/, '')]
    if (secretFile) {
      settings[secretFile.key] = readSecretFile(name, value!)
      continue
    }
    const key = FLAGS.get(name)!
    const kind = SETTING_KINDS[key]
    if (kind === 'boolean') settings[key] = !rawName.startsWith('--no-')
    else if (kind === 'list')
      settings[key] = [...((settings[key] as string[] | undefined) ?? []), value!]
    else settings[key] = value
  }
  return {
    command: positionals[0] ?? '',
    settings: settings as RunConfigInput,
    help: parsed.values.help === true,
    ...(typeof parsed.values['pull-request-body'] === 'string'
      ? { pullRequestBody: parsed.values['pull-request-body'] }
      : {})
  }
}

function readSecretFile(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8').trim()
  } catch (error) {
    throw new UsageError(
      `"--${flag}": cannot read ${file} (${(error as NodeJS.ErrnoException).code}).`
    )
  }
}

function splitFlag(arg: string): [string, string | undefined] {
  if (!arg.startsWith('--')) return ['', undefined]
  const eq = arg.indexOf('=')
  return eq < 0 ? [arg.slice(2), undefined] : [arg.slice(2, eq), arg.slice(eq + 1)]
}

export function usage(): string {
  const flags = SETTING_KEYS.map((key) => {
    const kind = SETTING_KINDS[key]
    const name = settingName(key)
    return kind === 'boolean'
      ? `  --${name} / --no-${name}`
      : `  --${name} ${kind === 'list' ? 'VALUE (repeatable)' : 'VALUE'}`
  })
  return [
    'Usage: patchsmith run --repo DIR --issue FILE --plan FILE [options]',
    '       patchsmith run --repo DIR --issue FILE | --issue-number N   (no plan: Patchsmith plans)',
    '       patchsmith run --repo DIR --coding-task FILE                (prints a CommitResult)',
    '       patchsmith commit [--repo DIR]   (seed code-commit: agent-config/query.txt, build.sh)',
    "       patchsmith follow-up --repo DIR --pr N   (answer the review of Patchsmith's own PR)",
    '       patchsmith recover [--repo DIR]  (undo what a killed run left, clear a stale lock; a run does it first)',
    '',
    'Turns an issue and a fix plan into a validated commit. The JSON result goes to stdout,',
    'or to --output FILE; progress goes to stderr. Exit codes: 0 committed, 1 refused or',
    'failed, 2 bad usage. Secrets never go on the command line: the API key comes from',
    'OPENAI_API_KEY or --api-key-file FILE, the GitHub token from GITHUB_TOKEN or',
    '--github-token-file FILE.',
    '',
    "  --pull-request-body FILE   a committed run's pull-request body (the result's",
    '                             pull_request.body, ending with Fixes #N) written to FILE',
    '',
    'Aliases: --plan (--fix-plan), --triage (--triage-result), --tasks (--task-file),',
    '         --output (--output-path), --validation-command (--validation-commands),',
    '         --pr (--follow-up)',
    '',
    'Options (each action input has the flag of the same name):',
    ...flags
  ].join('\n')
}
