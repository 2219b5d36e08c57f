import type { ModelExchange } from '../model/index.js'
import type { ReplayCommand } from './replay-format.js'

/** What announces a repository command (RunListener.command, CommandRunnerOptions.onStart). */
export type CommandStart = (command: string, about?: string) => (exitCode?: number) => void

/**
 * What a run did that a replay must do again: every model call that got a reply (as sent and as
 * answered) and every repository command with its exit code, in the order they ended.
 */
export class RunRecorder {
  readonly exchanges: ModelExchange[] = []
  readonly commands: ReplayCommand[] = []

  readonly onExchange = (exchange: ModelExchange): void => {
    this.exchanges.push(exchange)
  }

  /** `onStart` recording each command as it ends, then telling `next` (the progress). */
  commandStart(next?: CommandStart): CommandStart {
    return (command, about) => {
      const ended = next?.(command, about)
      return (exitCode) => {
        this.commands.push({
          command,
          ...(about === undefined ? {} : { about }),
          exit_code: exitCode ?? null
        })
        ended?.(exitCode)
      }
    }
  }
}
