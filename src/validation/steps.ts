import type { ValidationStep } from '../contract/index.js'

export interface PipelineStep {
  step: ValidationStep
  command: string
  /** Run when the check fails, before the check runs again (format and lint only). */
  fix?: string
}

interface StepCommands {
  formatCommand?: string
  formatFixCommand?: string
  lintCommand?: string
  lintFixCommand?: string
  typecheckCommand?: string
  testCommand?: string
}

/**
 * The pipeline in its order (seed Maverick): format → lint → typecheck → test, then the plain
 * validation commands. A command given both as a step and as a plain command runs once.
 */
export function pipelineSteps(steps: StepCommands, commands: readonly string[]): PipelineStep[] {
  const ordered: PipelineStep[] = []
  const add = (step: ValidationStep, command: string | undefined, fix?: string) => {
    if (command && !ordered.some((s) => s.command === command)) ordered.push({ step, command, fix })
  }
  add('format', steps.formatCommand, steps.formatFixCommand)
  add('lint', steps.lintCommand, steps.lintFixCommand)
  add('typecheck', steps.typecheckCommand)
  add('test', steps.testCommand)
  for (const command of commands) add('command', command)
  return ordered
}

// `lint: npm run lint`: a label, then the command (no shell command starts with `word: `).
const LABELLED_LINE = /^([A-Za-z][\w-]*):\s+(\S.*)$/

/**
 * A validation command line as planners and maintainers write it: a bare command, or one named
 * after a label (`test: npm test`, `build: make`). The label and the command, the command alone
 * being what runs.
 */
export function readCommandLine(line: string): { label?: string; command: string } {
  const text = line.trim()
  const labelled = LABELLED_LINE.exec(text)
  return labelled
    ? { label: labelled[1]!.toLowerCase(), command: labelled[2]!.trim() }
    : { command: text }
}

/** The named steps' commands (checks and fixers): commands a maintainer configured. */
export function stepCommandList(steps: StepCommands): string[] {
  return Object.values(steps).filter((command): command is string => Boolean(command))
}
