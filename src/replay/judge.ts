import type { ChatMessage } from '../model/index.js'
import type { CommandStart } from './recorder.js'
import { replyDigest } from './replay-file.js'
import type { Replay, ReplayExchange } from './replay-format.js'

type DivergenceKind = 'reply-edited' | 'request' | 'command' | 'outcome' | 'tree'

interface Divergence {
  kind: DivergenceKind
  /** One line: which step, and how it differs from the recording. */
  message: string
}

/** How the replayed run ended, as the judge compares it with the recording. */
interface ReplayedOutcome {
  success: boolean
  errorCode?: string
  errorMessage?: string
  /** Each commit the replay made, with its tree. */
  commits: Array<{ sha: string; tree: string }>
}

const SHOWN = 60

/**
 * Holds a replay to its recording, step by step as the replay goes: each model request must be a
 * recorded one (its reply is then served), each command must end as recorded, and the end must
 * be the recorded outcome and tree. Divergences are kept in the order they happened; the first is
 * where the replay left the recording.
 */
export class ReplayJudge {
  readonly divergences: Divergence[] = []
  private readonly used: boolean[]
  private requests = 0
  private commandsRun = 0

  constructor(
    private readonly replay: Replay,
    /** The replay's masker: requests are compared as the recording holds them, masked. */
    private readonly mask: (text: string) => string
  ) {
    this.used = replay.exchanges.map(() => false)
    // An edited reply is known before anything runs; the replay still serves it, and says where it led.
    replay.exchanges.forEach((exchange, index) => {
      if (replyDigest(exchange.reply) !== exchange.reply_sha256)
        this.diverge(
          'reply-edited',
          `reply ${index + 1} of ${replay.exchanges.length} (${about(exchange)}) was edited after the run: its text no longer matches its recorded sha256`
        )
    })
  }

  get modelCalls(): number {
    return this.requests
  }

  get commandCount(): number {
    return this.commandsRun
  }

  /** The recorded exchange answering this request, or undefined (a divergence, said). */
  answer(messages: readonly ChatMessage[]): ReplayExchange | undefined {
    const number = ++this.requests
    const sent = messages.map(({ role, content }) => ({ role, content: this.mask(content) }))
    const open = this.replay.exchanges.map((exchange, index) => ({ exchange, index }))
    const unused = open.filter(({ index }) => !this.used[index])
    const match = unused.find(({ exchange }) => sameRequest(exchange.messages, sent))
    if (match) {
      this.used[match.index] = true
      return match.exchange
    }
    const total = this.replay.exchanges.length
    if (unused.length === 0) {
      this.diverge(
        'request',
        `request ${number} has no recorded reply: the recorded run made ${total} model call(s)`
      )
      return undefined
    }
    const closest = unused
      .map((candidate) => ({
        ...candidate,
        where: firstDifference(candidate.exchange.messages, sent)
      }))
      .sort((a, b) => b.where.common - a.where.common)[0]!
    this.diverge(
      'request',
      `request ${number} differs from recorded request ${closest.index + 1} (${about(closest.exchange)}): ${closest.where.text}: the prompt changed`
    )
    return undefined
  }

  /** `onStart` comparing each command, as it ends, with the recorded one at its place. */
  commandStart(next?: CommandStart): CommandStart {
    return (command, aboutIt) => {
      const ended = next?.(command, aboutIt)
      return (exitCode) => {
        const index = this.commandsRun++
        const recorded = this.replay.commands_run[index]
        const shown = `\`${command}\`${aboutIt ? ` (${aboutIt})` : ''}`
        const code = exitCode ?? null
        if (!recorded)
          this.diverge('command', `command ${index + 1} ${shown} ran; the recorded run ran no more`)
        else if (recorded.command !== command || (recorded.about ?? undefined) !== aboutIt)
          this.diverge(
            'command',
            `command ${index + 1} was ${shown}; the recorded run's was \`${recorded.command}\`${recorded.about ? ` (${recorded.about})` : ''}`
          )
        else if (recorded.exit_code !== code)
          this.diverge(
            'command',
            `command ${index + 1} ${shown} exited ${code}; in the recorded run it exited ${recorded.exit_code}: the validation outcome differs`
          )
        ended?.(exitCode)
      }
    }
  }

  /**
   * The end: calls and commands the recording has and the replay never made, the outcome, each
   * commit's tree, and (when the recorded commit is in the repository) that the recording names
   * that commit's real tree.
   */
  finish(outcome: ReplayedOutcome, treeInRepository: (sha: string) => string | undefined): void {
    const { exchanges, commands_run: commands, outcome: recorded } = this.replay
    // A run that ended otherwise explains the calls and commands it never made: said first.
    if (
      outcome.success !== recorded.success ||
      (outcome.errorCode ?? '') !== (recorded.error_code ?? '')
    )
      this.diverge(
        'outcome',
        `the outcome differs: recorded ${recorded.success ? 'success' : recorded.error_code}, replayed ${outcome.success ? 'success' : `${outcome.errorCode}: ${outcome.errorMessage ?? ''}`}`
      )
    // A request or command that differed already explains the recorded one never matched.
    const said = (kind: DivergenceKind) => this.divergences.some((d) => d.kind === kind)
    const unusedAt = this.used.indexOf(false)
    if (unusedAt >= 0 && !said('request'))
      this.diverge(
        'request',
        `recorded request ${unusedAt + 1} (${about(exchanges[unusedAt]!)}) was never made`
      )
    if (this.commandsRun < commands.length && !said('command')) {
      const missing = commands[this.commandsRun]!
      this.diverge(
        'command',
        `recorded command ${this.commandsRun + 1} \`${missing.command}\` did not run`
      )
    }
    recorded.commits.forEach((commit, index) => {
      const actual = treeInRepository(commit.sha)
      if (actual && actual !== commit.tree)
        this.diverge(
          'tree',
          `the recording names tree ${commit.tree} for commit ${commit.sha}, whose tree in the repository is ${actual}: the recording was edited`
        )
      const replayed = outcome.commits[index]
      if (replayed && replayed.tree !== commit.tree)
        this.diverge(
          'tree',
          `the final tree differs: recorded ${commit.tree}, replayed ${replayed.tree} (commit ${replayed.sha})`
        )
    })
    if (outcome.commits.length !== recorded.commits.length)
      this.diverge(
        'tree',
        `the replay made ${outcome.commits.length} commit(s); the recorded run made ${recorded.commits.length}`
      )
  }

  private diverge(kind: DivergenceKind, message: string): void {
    this.divergences.push({ kind, message })
  }
}

function about(exchange: ReplayExchange): string {
  return `${exchange.label}, attempt ${exchange.attempt}`
}

/** The recorded messages, and at most one more after them (a prompt-mode JSON instruction). */
function sameRequest(recorded: readonly ChatMessage[], sent: readonly ChatMessage[]): boolean {
  if (sent.length < recorded.length || sent.length > recorded.length + 1) return false
  return recorded.every(
    (message, index) =>
      message.role === sent[index]!.role && message.content === sent[index]!.content
  )
}

/** Where two requests part: the message, the character, a little of each side. */
function firstDifference(
  recorded: readonly ChatMessage[],
  sent: readonly ChatMessage[]
): { common: number; text: string } {
  let common = 0
  for (let index = 0; index < Math.max(recorded.length, sent.length); index++) {
    const a = recorded[index]
    const b = sent[index]
    if (!a || !b)
      return {
        common,
        text: `it has ${sent.length} message(s), the recorded one ${recorded.length}`
      }
    if (a.role === b.role && a.content === b.content) {
      common += a.content.length
      continue
    }
    let at = 0
    while (at < a.content.length && a.content[at] === b.content[at]) at++
    return {
      common: common + at,
      text: `message ${index + 1} (${b.role}) differs at character ${at + 1}: recorded ${snippet(a.content, at)}, replayed ${snippet(b.content, at)}`
    }
  }
  return { common, text: 'it matches a request already answered' }
}

function snippet(text: string, at: number): string {
  return JSON.stringify(text.slice(at, at + SHOWN))
}
