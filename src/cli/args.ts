import { readFileSync } from 'node:fs'
import { usage as helpText } from './help.js'
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
  version: boolean
  /** `--json`: the whole result JSON on stdout too. */
  json: boolean
  /** `--pull-request-body FILE`: where a green run's pull-request body is written. */
  pullRequestBody?: string
  /** `replay FILE`: the recording (replay.json, or the artifact folder holding it). */
  target?: string
}

/** The command line's own flags, not settings: read from parseArgs's values. */
const CLI_ONLY = new Set(['help', 'version', 'json', 'pull-request-body'])

type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean; short?: string }

const OPTIONS: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  json: { type: 'boolean' },
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
    throw new UsageError(unknown ? `Unknown flag "${unknown}".` : message.split('\n')[0]!)
  }
  const positionals = parsed.positionals
  // `replay FILE` names its recording; every other command takes flags only.
  const allowed = positionals[0] === 'replay' ? 2 : 1
  if (positionals.length > allowed)
    throw new UsageError(`Unexpected argument "${positionals[allowed]}".`)
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || CLI_ONLY.has(token.name)) continue
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
    ...(positionals[1] === undefined ? {} : { target: positionals[1] }),
    settings: settings as RunConfigInput,
    help: parsed.values.help === true,
    version: parsed.values.version === true,
    json: parsed.values.json === true,
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

/** `--help`: every flag by group, one line each (help.ts). */
export function usage(): string {
  return helpText(
    Object.fromEntries(Object.entries(ALIASES).map(([alias, key]) => [alias, settingName(key)]))
  )
}
