import type { ValidationStep } from '../contract/index.js'

export interface PipelineStep {
  step: ValidationStep
  command: string
  /** Run when the check fails, before the check runs again (format and lint only). */
  fix?: string
}

export interface StepCommands {
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
