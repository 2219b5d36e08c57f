import { spawn } from 'node:child_process'
import stripAnsi from 'strip-ansi'
import type { ValidationResult } from '../contract/index.js'
import {
  runProcesses,
  Sandbox,
  startedInJail,
  startRaced,
  supervised,
  type TreeOverlay,
  validationEnv,
  type NetworkMode
} from '../sandbox/index.js'
import { CappedOutput, truncateMiddle } from './capped-output.js'
import type { SecretMasker } from '../secrets/index.js'
import { JUnitReportFiles, type ReportFilesRead } from './test-report/index.js'

export interface CommandRunnerOptions {
  cwd: string
  timeoutMs: number
  /** Characters of stdout and of stderr kept in each result. */
  outputLimit: number
  masker: SecretMasker
  /** The command's whole environment (default: the allowlisted part of this process's). */
  env?: Record<string, string>
  /** Where the command runs (default: bare, no sandbox). */
  sandbox?: Sandbox
  /** Ends the command (its whole sandbox or process group) when aborted: a cancelled run. */
  signal?: AbortSignal
  /** This command's network over the sandbox's (setup commands: open). */
  network?: NetworkMode
  /** Set on top of the environment for this command (the base check's GIT_INDEX_FILE). */
  extraEnv?: Record<string, string>
  /** The work tree as this overlay: what the command did is merged in once it has ended. */
  overlay?: TreeOverlay
  /** Told as each command starts (its text, masked); what it returns is called as it ends. */
  onStart?: (command: string, about?: string) => (exitCode?: number) => void
  /** What this run of the command is for, when not the change's validation (the base check). */
  about?: string
}

export interface CommandOutcome extends ValidationResult {
  timedOut: boolean
  /** The whole output as read (capped while reading), masked: for repair prompts and logs. */
  full: { stdout: string; stderr: string }
  /** The JUnit XML files this command wrote or rewrote in the work tree, read and parsed. */
  reportFiles?: ReportFilesRead
}

const READ_CAP = 256 * 1024
/**
 * Runs one validation command through `sh -c`, in the run's sandbox and its own process group
 * (which dies with the run, and is recorded in its journal while it runs): stdin closed, output read with a cap, and the whole group killed at the timeout (the
 * sandbox's PID namespace takes every process the command started with it).
 */
export async function runCommand(
  command: string,
  options: CommandRunnerOptions
): Promise<CommandOutcome> {
  // Taken stock of before the command: only report files it writes count.
  const reports = await JUnitReportFiles.before(options.cwd, command)
  const ended = options.onStart?.(options.masker.mask(command), options.about)
  let outcome: CommandOutcome | undefined
  try {
    // Made again where the jail failed before the command started (a covered socket went).
    outcome = await startedInJail(() => runProcess(command, options))
  } finally {
    ended?.(outcome?.exit_code)
  }
  // On an overlay the report files are read where the command wrote them, before the merge
  // (which carries only the approved change); a cancelled command's overlay is dropped.
  const mask = (text: string) => options.masker.mask(text)
  const read = await reports.read(mask, options.overlay?.upperFolder)
  options.overlay?.settle(options.signal?.aborted || outcome.timedOut, outcome.exit_code)
  return read.files.length > 0 || read.refused.length > 0
    ? { ...outcome, reportFiles: read }
    : outcome
}

function runProcess(
  command: string,
  options: CommandRunnerOptions
): Promise<{ result: CommandOutcome; raced: boolean }> {
  const started = Date.now()
  return new Promise((resolve) => {
    const sandbox = options.sandbox ?? Sandbox.none()
    const env = { ...(options.env ?? validationEnv(process.env)), ...options.extraEnv }
    const spec = sandbox.spawnSpec(command, options.cwd, env, {
      network: options.network,
      overlay: options.overlay
    })
    // Its own process group, under the supervisor that ends it with the run (lifetime.ts).
    const program = supervised(spec, true)
    const child = spawn(program.file, program.args, {
      cwd: options.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true
    })
    runProcesses.track(child.pid)
    const stdout = new CappedOutput(READ_CAP)
    const stderr = new CappedOutput(READ_CAP)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk))
    let timedOut = false
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // the group is already gone
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, options.timeoutMs)
    options.signal?.addEventListener('abort', killGroup, { once: true })
    const finish = (exitCode: number) => {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', killGroup)
      killGroup()
      runProcesses.untrack(child.pid)
      const clean = (text: string) => options.masker.mask(stripAnsi(text))
      const err = stderr.text()
      const full = {
        stdout: clean(stdout.text()),
        stderr: clean(
          timedOut ? `${err}\nKilled after ${options.timeoutMs} ms (command-timeout).` : err
        )
      }
      const outcome = {
        command,
        exit_code: timedOut ? 124 : exitCode,
        stdout: truncateMiddle(full.stdout, options.outputLimit),
        stderr: truncateMiddle(full.stderr, options.outputLimit),
        duration_ms: Date.now() - started,
        full,
        timedOut
      }
      const raced = !timedOut && startRaced(spec, exitCode, stdout.text(), err)
      resolve({ result: outcome, raced })
    }
    let exitCode = 1
    child.on('error', (error) => {
      stderr.push(String(error.message))
      exitCode = 127
    })
    // Background children may hold the pipes open after the shell exits: end them with it.
    child.on('exit', (code, signal) => {
      exitCode = code ?? (signal ? 137 : 1)
      killGroup()
    })
    child.on('close', () => finish(exitCode))
  })
}
