import { randomUUID } from 'node:crypto'
import { accessSync, appendFileSync, constants, existsSync } from 'node:fs'
import { EOL } from 'node:os'

/**
 * What a JavaScript action says to the runner: inputs from `INPUT_*`, outputs to the
 * GITHUB_OUTPUT file, the job summary, masks and log lines as workflow commands — the
 * documented protocol, byte for byte as @actions/core writes it. It is written here because
 * @actions/core loads an HTTP client for OIDC tokens at start-up (about 45 ms of the action's
 * own cost) that this action never uses.
 */
export const runner = {
  /** An input as the runner passes it (`INPUT_<NAME>`), trimmed; '' when not set. */
  getInput(name: string): string {
    return (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim()
  },

  setOutput(name: string, value: unknown): void {
    const file = process.env.GITHUB_OUTPUT
    if (!file) {
      process.stdout.write(EOL)
      command('set-output', commandValue(value), `name=${escapeProperty(name)}`)
      return
    }
    // A random delimiter that neither the name nor the value may contain: text from the issue
    // or the model can then never close the block early and set another output.
    const delimiter = `ghadelimiter_${randomUUID()}`
    const text = commandValue(value)
    if (name.includes(delimiter) || text.includes(delimiter)) {
      throw new Error(`The output ${name} contains its own delimiter.`)
    }
    appendToFile(file, `${name}<<${delimiter}${EOL}${text}${EOL}${delimiter}`)
  },

  /** Masks the value in every later log line of the job. */
  setSecret(value: string): void {
    command('add-mask', value)
  },

  /**
   * A log line. Log lines carry text from outside (model replies, task descriptions, command
   * output): when a line of it starts with `::` it would run as a workflow command, so the
   * message is fenced with a one-time `stop-commands` token.
   */
  info(message: string): void {
    if (!WORKFLOW_COMMAND.test(message)) return void process.stdout.write(`${message}${EOL}`)
    const token = randomUUID()
    process.stdout.write(`::stop-commands::${token}${EOL}${message}${EOL}::${token}::${EOL}`)
  },

  warning(message: string): void {
    command('warning', message)
  },

  debug(message: string): void {
    command('debug', message)
  },

  /** An error annotation, and the step fails when the process ends. */
  setFailed(message: string): void {
    process.exitCode = 1
    command('error', message)
  },

  /** Appends Markdown to the job summary; false when there is no summary file. */
  appendSummary(markdown: string): boolean {
    const file = process.env.GITHUB_STEP_SUMMARY
    if (!file) return false
    accessSync(file, constants.R_OK | constants.W_OK)
    appendFileSync(file, `${markdown}${EOL}`, 'utf8')
    return true
  }
}

const WORKFLOW_COMMAND = /(^|[\r\n])\s*::/

function appendToFile(file: string, message: string): void {
  if (!existsSync(file)) throw new Error(`Missing file at path: ${file}`)
  appendFileSync(file, `${message}${EOL}`, 'utf8')
}

function command(name: string, message: string, properties = ''): void {
  process.stdout.write(
    `::${name}${properties ? ` ${properties}` : ''}::${escapeData(message)}${EOL}`
  )
}

function commandValue(value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}
