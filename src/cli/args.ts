import { readFileSync } from 'node:fs'
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
  'validation-command': 'validationCommands'
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
}

/**
 * Parses `patchsmith run --flag value …`. Flags: `--name value`, `--name=value`, booleans as
 * `--name`, `--no-name` or `--name=false`; list flags may repeat.
 */
export function parseCliArgs(argv: readonly string[]): CliInvocation {
  const settings: Record<string, unknown> = {}
  let command = ''
  let help = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') {
      help = true
      continue
    }
    if (!arg.startsWith('--')) {
      if (command) throw new UsageError(`Unexpected argument "${arg}".`)
      command = arg
      continue
    }
    const [rawName, inlineValue] = splitFlag(arg.slice(2))
    const secret = SECRET_FLAGS[rawName]
    if (secret)
      throw new UsageError(
        `"--${rawName}" would put the secret on the command line, where every process can read it: set ${secret.variable} or pass --${rawName}-file FILE.`
      )
    const secretFile = SECRET_FLAGS[rawName.replace(/-file$/, '')]
    if (secretFile && rawName.endsWith('-file')) {
      const file = inlineValue ?? argv[++i]
      if (!file) throw new UsageError(`"--${rawName}" needs a file.`)
      settings[secretFile.key] = readSecretFile(rawName, file)
      continue
    }
    const negated = rawName.startsWith('no-') && !FLAGS.has(rawName)
    const name = negated ? rawName.slice(3) : rawName
    const key = FLAGS.get(name)
    if (!key)
      throw new UsageError(`Unknown flag "--${rawName}". Run "patchsmith --help" for the list.`)
    const kind = SETTING_KINDS[key]
    if (kind === 'boolean') {
      if (negated && inlineValue !== undefined)
        throw new UsageError(`"--${rawName}" takes no value.`)
      settings[key] = negated ? false : (inlineValue ?? true)
      continue
    }
    if (negated) throw new UsageError(`"--${rawName}" is not a switch.`)
    const value = inlineValue ?? argv[++i]
    if (value === undefined || (inlineValue === undefined && isKnownFlag(value))) {
      throw new UsageError(`"--${name}" needs a value.`)
    }
    if (kind === 'list') settings[key] = [...((settings[key] as string[] | undefined) ?? []), value]
    else settings[key] = value
  }
  return { command, settings: settings as RunConfigInput, help }
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

function isKnownFlag(text: string): boolean {
  if (!text.startsWith('--')) return false
  const name = splitFlag(text.slice(2))[0]
  return FLAGS.has(name) || FLAGS.has(name.replace(/^no-/, '')) || name === 'help'
}

function splitFlag(text: string): [string, string | undefined] {
  const eq = text.indexOf('=')
  return eq < 0 ? [text, undefined] : [text.slice(0, eq), text.slice(eq + 1)]
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
    '       patchsmith recover [--repo DIR]  (undo what a killed run left; a run does it first)',
    '',
    'Turns an issue and a fix plan into a validated commit. The JSON result goes to stdout,',
    'or to --output FILE; progress goes to stderr. Exit codes: 0 committed, 1 refused or',
    'failed, 2 bad usage. Secrets never go on the command line: the API key comes from',
    'OPENAI_API_KEY or --api-key-file FILE, the GitHub token from GITHUB_TOKEN or',
    '--github-token-file FILE.',
    '',
    'Aliases: --plan (--fix-plan), --triage (--triage-result), --tasks (--task-file),',
    '         --output (--output-path), --validation-command (--validation-commands)',
    '',
    'Options (each action input has the flag of the same name):',
    ...flags
  ].join('\n')
}
