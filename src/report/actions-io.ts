import * as core from '@actions/core'
import { randomUUID } from 'node:crypto'
import { mayRunWorkflowCommand } from '../model/index.js'

/** Where an annotation points, when the failure names a file (and maybe a line). */
interface AnnotationPlace {
  file?: string
  line?: number
  title?: string
}

/**
 * What the action says to the runner, through @actions/core: inputs, outputs, state, the job
 * summary, masks, annotations and log groups. One object so that main.ts (and tests) depend on
 * a small face instead of the whole toolkit.
 */
export const actionsIo = {
  /** An input as the runner passes it (`INPUT_<NAME>`), trimmed; '' when not set. */
  getInput(name: string): string {
    return core.getInput(name)
  },

  setOutput(name: string, value: unknown): void {
    core.setOutput(name, value)
  },

  saveState(name: string, value: unknown): void {
    core.saveState(name, value)
  },

  getState(name: string): string {
    return core.getState(name)
  },

  /** Masks the value in every later log line of the job. */
  setSecret(value: string): void {
    core.setSecret(value)
  },

  /**
   * A log line. Log lines carry text from outside (model replies, task descriptions, command
   * output): when the runner could read a line of it as a workflow command (`::` after what it
   * trims, or `##[` anywhere: see mayRunWorkflowCommand), the message is fenced with a one-time
   * `stop-commands` token.
   */
  info(message: string): void {
    if (!mayRunWorkflowCommand(message)) return core.info(message)
    const token = randomUUID()
    core.info(`::stop-commands::${token}`)
    core.info(message)
    core.info(`::${token}::`)
  },

  warning(message: string, place: AnnotationPlace = {}): void {
    core.warning(message, annotation(place))
  },

  debug(message: string): void {
    core.debug(message)
  },

  /** An error annotation (on the file and line when known); the step fails when the process ends. */
  setFailed(message: string, place: AnnotationPlace = {}): void {
    process.exitCode = 1
    core.error(message, annotation(place))
  },

  /** Runs `fn` inside a collapsible log group. */
  group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return core.group(name, fn)
  },

  /** Appends Markdown to the job summary; false when there is no summary file. */
  async appendSummary(markdown: string): Promise<boolean> {
    if (!process.env.GITHUB_STEP_SUMMARY) return false
    // core.summary remembers the first summary file it saw; a fresh writer per call follows
    // GITHUB_STEP_SUMMARY as it is now (in-process test runs each have their own).
    const Summary = core.summary.constructor as new () => typeof core.summary
    await new Summary().addRaw(markdown, true).write()
    return true
  }
}

function annotation(place: AnnotationPlace): core.AnnotationProperties {
  const properties: core.AnnotationProperties = {}
  if (place.title) properties.title = place.title
  if (place.file) {
    properties.file = place.file
    if (place.line && place.line > 0) properties.startLine = place.line
  }
  return properties
}

/** The file and line an error's details name, for its annotation. */
export function placeOf(details: unknown): AnnotationPlace {
  if (!details || typeof details !== 'object') return {}
  const { path, file, line } = details as Record<string, unknown>
  const where = typeof file === 'string' ? file : typeof path === 'string' ? path : undefined
  return {
    file: where,
    line: typeof line === 'number' && Number.isInteger(line) ? line : undefined
  }
}
