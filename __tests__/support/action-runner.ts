/**
 * Runs the bundled action (dist/index.js) or CLI (dist/cli.js) in a child process, with the
 * environment the GitHub runner gives a JavaScript action and nothing inherited beyond
 * PATH/HOME/TMPDIR, so a developer's or CI's own GITHUB_* variables cannot leak in.
 */
import { execFileSync, spawn } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { constants, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { GROUPED_SETTINGS } from '../../src/settings.js'

export interface ActionRun {
  exitCode: number
  stdout: string
  stderr: string
  /** Outputs set with core.setOutput (parsed from the GITHUB_OUTPUT file). */
  outputs: Record<string, string>
  /** The job summary (the GITHUB_STEP_SUMMARY file). */
  summary: string
  /** State saved for a post step (the GITHUB_STATE file, parsed like outputs). */
  state: Record<string, string>
  /** What the step wrote to GITHUB_ENV and GITHUB_PATH (later steps would run with it). */
  fileCommands: { env: string; path: string }
  durationMs: number
}

export interface ActionRunOptions {
  /** GITHUB_WORKSPACE and the working directory. */
  workspace: string
  /** Input values by name as declared in action.yml; undeclared inputs get their default. */
  inputs?: Record<string, string>
  /** The webhook payload (default `{}`); one with an `issue` makes the event 'issues'. */
  event?: object
  /** Applied last, over the runner's variables. */
  env?: Record<string, string>
  /** Default 60 s. */
  timeoutMs?: number
  /** Signals to send once `when` resolves, as a runner cancelling the job would. */
  signals?: SignalPlan
  /**
   * Runs the action as this user (runuser, as root), the runner's files made theirs: a
   * GitHub-hosted runner's user is not root. The caller makes the workspace theirs.
   */
  user?: string
}

export interface SignalPlan {
  when: Promise<unknown>
  /** Sent in order, `gapMs` apart (GitHub: SIGINT, then SIGTERM 7.5 s later). */
  send: NodeJS.Signals[]
  gapMs?: number
  /** Called once the first signal is sent (e.g. to let a held-up git go on). */
  afterFirst?: () => void
}

export interface CliRun {
  exitCode: number
  stdout: string
  stderr: string
  durationMs: number
}

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

const DEFAULT_TIMEOUT_MS = 60_000

export async function runAction(options: ActionRunOptions): Promise<ActionRun> {
  const runner = runnerFiles(options)
  const asUser = options.user ? ['runuser', '-u', options.user, '--'] : []
  if (options.user) execFileSync('chown', ['-R', options.user, runner.folder])
  try {
    const run = await runNode([...asUser, process.execPath, entry('index.js')], {
      cwd: options.workspace,
      env: runner.env,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signals: options.signals
    })
    return { ...run, ...runner.read() }
  } finally {
    runner.remove()
  }
}

export interface RunnerFiles {
  /** The environment the runner gives the step: its files, the event, the inputs. */
  env: Record<string, string>
  /** What the step wrote: outputs, the job summary, GITHUB_ENV and GITHUB_PATH. */
  read(): Pick<ActionRun, 'outputs' | 'summary' | 'state' | 'fileCommands'>
  /** The temp folder holding them all. */
  folder: string
  remove(): void
}

/** The files and variables a GitHub runner sets up for one step of a JavaScript action. */
export function runnerFiles(options: ActionRunOptions): RunnerFiles {
  const temp = mkdtempSync(join(tmpdir(), 'patchsmith-action-'))
  const outputFile = join(temp, 'output')
  const summaryFile = join(temp, 'summary')
  const stateFile = join(temp, 'state')
  const eventFile = join(temp, 'event.json')
  const runnerTemp = join(temp, 'runner-temp')
  // Where the runner keeps its file commands: under RUNNER_TEMP.
  const fileCommands = join(runnerTemp, '_runner_file_commands')
  const envFile = join(fileCommands, 'set_env_0d3c')
  const pathFile = join(fileCommands, 'add_path_0d3c')
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  writeFileSync(stateFile, '')
  writeFileSync(eventFile, JSON.stringify(options.event ?? {}))
  mkdirSync(fileCommands, { recursive: true })
  writeFileSync(envFile, '')
  writeFileSync(pathFile, '')

  const env: Record<string, string> = {
    ...baseEnv(),
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_STATE: stateFile,
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_ENV: envFile,
    GITHUB_PATH: pathFile,
    GITHUB_EVENT_NAME: options.event && 'issue' in options.event ? 'issues' : 'workflow_dispatch',
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_REPOSITORY_OWNER: 'acme',
    RUNNER_TEMP: runnerTemp,
    ...inputEnv(options.inputs ?? {}),
    ...options.env
  }
  return {
    env,
    read: () => ({
      outputs: parseOutputFile(readFileSync(outputFile, 'utf8')),
      summary: readFileSync(summaryFile, 'utf8'),
      state: parseOutputFile(readFileSync(stateFile, 'utf8')),
      fileCommands: { env: readFileSync(envFile, 'utf8'), path: readFileSync(pathFile, 'utf8') }
    }),
    folder: temp,
    remove: () => rmSync(temp, { recursive: true, force: true })
  }
}

/** `--api-key-file FILE` (or the GitHub token's): the CLI takes no secret on its argv. */
export function secretFlag(
  flag: '--api-key-file' | '--github-token-file',
  value: string
): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-secret-'))
  const file = join(dir, 'secret')
  writeFileSync(file, `${value}\n`, { mode: 0o600 })
  return [flag, file]
}

export function runCli(
  args: string[],
  options: {
    cwd?: string
    env?: Record<string, string>
    timeoutMs?: number
    signals?: SignalPlan
    /** Called with all of stderr so far, as each piece arrives: to act on a line of progress. */
    onStderr?: (stderr: string) => void
  } = {}
): Promise<CliRun> {
  return runProgram([process.execPath, entry('cli.js'), ...args], options)
}

/** Any program, with the same clean environment and process-group handling as runCli. */
export function runProgram(
  argv: string[],
  options: {
    cwd?: string
    env?: Record<string, string>
    timeoutMs?: number
    signals?: SignalPlan
    onStderr?: (stderr: string) => void
  } = {}
): Promise<CliRun> {
  return runNode(argv, {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { ...baseEnv(), ...options.env },
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signals: options.signals,
    onStderr: options.onStderr
  })
}

/**
 * Parses a GITHUB_OUTPUT file: `name<<DELIMITER` blocks as written by @actions/core, and
 * `name=value` lines as written by shell steps.
 */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line)
    if (heredoc) {
      const [, name, delimiter] = heredoc
      const end = lines.indexOf(delimiter, i + 1)
      if (end === -1) throw new Error(`GITHUB_OUTPUT: no closing ${delimiter} for output ${name}`)
      outputs[name] = lines.slice(i + 1, end).join('\n')
      i = end
    } else if (line.includes('=')) {
      const at = line.indexOf('=')
      outputs[line.slice(0, at)] = line.slice(at + 1)
    }
  }
  return outputs
}

/**
 * The INPUT_* variables the runner sets: one per input declared in action.yml, with the given
 * value or the declared default. Expression defaults cannot be evaluated here and are left
 * unset, except `${{ github.token }}`, set to '' so that tests opt in to a token.
 */
function inputEnv(inputs: Record<string, string>): Record<string, string> {
  const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
    inputs?: Record<string, { default?: unknown } | null>
  }
  const declared = action.inputs ?? {}
  // A grouped setting given by its own name goes into the `settings` input, as a user writes it.
  const grouped = Object.entries(inputs).filter(
    ([name]) => !(name in declared) && name in GROUPED_SETTINGS
  )
  if (grouped.length > 0) {
    const lines = grouped.flatMap(([name, value]) => value.split('\n').map((v) => `${name}: ${v}`))
    inputs = {
      ...Object.fromEntries(Object.entries(inputs).filter(([name]) => !(name in GROUPED_SETTINGS))),
      settings: [inputs.settings ?? '', ...lines].filter(Boolean).join('\n')
    }
  }
  // The runner only warns about unknown inputs; failing here catches typos in tests.
  const unknown = Object.keys(inputs).filter((name) => !(name in declared))
  if (unknown.length > 0) {
    throw new Error(
      `runAction: inputs not declared in action.yml: ${unknown.join(', ')} ` +
        `(declared: ${Object.keys(declared).join(', ')})`
    )
  }
  const env: Record<string, string> = {}
  for (const [name, spec] of Object.entries(declared)) {
    let value: string | undefined = inputs[name]
    if (value === undefined && spec?.default !== undefined && spec.default !== null) {
      const fallback = String(spec.default)
      if (/^\$\{\{\s*github\.token\s*\}\}$/.test(fallback.trim())) value = ''
      else if (!fallback.includes('${{')) value = fallback
    }
    // The same name mangling as core.getInput.
    if (value !== undefined) env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
  }
  return env
}

/** The only variables inherited from the parent process. */
/** What a child gets of this process's environment: PATH, HOME and TMPDIR. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of ['PATH', 'HOME', 'TMPDIR']) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return env
}

export function entry(file: string): string {
  const path = join(PROJECT_ROOT, 'dist', file)
  if (!existsSync(path)) throw new Error(`${path} does not exist; run \`npm run bundle\` first`)
  // Tests through dist/ after a source change would silently test the old bundle. A fresh
  // clone's file times are checkout order, so a newer source file only counts when the
  // sources differ from the commit (whose dist/ check-dist holds to them).
  const source = newestUnder(join(PROJECT_ROOT, 'src'))
  if (source.mtimeMs > statSync(path).mtimeMs && sourcesChanged())
    throw new Error(`${source.path} is newer than ${path}: run \`npm run bundle\` (npm test does)`)
  return path
}

/** True when src/ or prompts/ differ from the checked-out commit (or git cannot tell). */
function sourcesChanged(): boolean {
  try {
    const status = execFileSync('git', ['status', '--porcelain', '--', 'src', 'prompts'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore']
    })
    return status.trim() !== ''
  } catch {
    return true
  }
}

function newestUnder(dir: string): { path: string; mtimeMs: number } {
  let newest = { path: dir, mtimeMs: 0 }
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath ?? entry.path, entry.name)
    const { mtimeMs } = statSync(path)
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs }
  }
  return newest
}

function runNode(
  argv: string[],
  options: {
    cwd: string
    env: Record<string, string>
    timeoutMs: number
    signals?: SignalPlan
    onStderr?: (stderr: string) => void
  }
): Promise<CliRun> {
  const started = Date.now()
  return new Promise((resolvePromise, reject) => {
    // Its own process group, so a timeout also kills whatever the action started.
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      options.onStderr?.(stderr)
    })
    void options.signals?.when.then(async () => {
      for (const [i, name] of options.signals!.send.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, options.signals!.gapMs ?? 0))
        if (child.exitCode === null && child.signalCode === null) child.kill(name)
        if (i === 0) options.signals!.afterFirst?.()
      }
    })

    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child.pid)
    }, options.timeoutMs)

    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    // The runner ends a step's leftover processes too; here they would hold the pipes open.
    child.on('exit', () => killGroup(child.pid))
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const durationMs = Date.now() - started
      if (timedOut) {
        reject(
          new Error(
            `${argv.join(' ')} timed out after ${options.timeoutMs} ms ` +
              `and was killed; stderr:\n${stderr}`
          )
        )
        return
      }
      const exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0)
      resolvePromise({ exitCode, stdout, stderr, durationMs })
    })
  })
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
