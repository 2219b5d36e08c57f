import type { JournalRecord, RunJournal } from '../run-state/index.js'

/** What one change run fixes at its start, as the journal records it. */
interface ChangeStart {
  branch: string
  base: string
  baseSha: string
  startBranch?: string
  startHead: string
  push: boolean
  /** The branch's tip on origin before the run (recorded when pushing). */
  remoteBefore?: string
  journal?: RunJournal
}

/**
 * What a change has done to the repository so far, written to the journal before each step
 * that a recovery would have to undo if the run died (SIGKILL) in the middle of it.
 */
export class ChangeState {
  baseSha: string
  stash?: string
  stashMessage?: string
  onBranch = false
  createdLocal = false
  pushed = false
  pushing = false
  worktreeChanged = false
  baseMoved = false
  leftStart = false
  readonly touched = new Set<string>()
  /**
   * Touched paths that had no file when a patch was applied: only these can be left untracked
   * by a reset to the base (every other touched path is tracked there, so reset puts it back).
   * Not journaled: a recovery cleans every touched path.
   */
  readonly absent = new Set<string>()
  readonly commits: string[] = []
  /** The branch's local tip before the run, or null once the run knows it was absent. */
  localBefore?: string | null
  private readonly started = new Date().toISOString()

  constructor(readonly start: ChangeStart) {
    this.baseSha = start.baseSha
  }

  get journal(): RunJournal | undefined {
    return this.start.journal
  }

  /** Records what a recovery would have to undo if the run died now. */
  save(intent: Partial<JournalRecord> = {}): void {
    const { start } = this
    start.journal?.write({
      pid: process.pid,
      started: this.started,
      startBranch: start.startBranch,
      startHead: start.startHead,
      base: start.base,
      baseSha: this.baseSha,
      branch: start.branch,
      stashMessage: this.stashMessage,
      stash: this.stash,
      leftStart: this.leftStart,
      createdLocal: this.createdLocal,
      localBefore: this.localBefore,
      remoteBefore: start.push ? (start.remoteBefore ?? null) : undefined,
      worktreeChanged: this.worktreeChanged,
      baseMoved: this.baseMoved,
      commits: [...this.commits],
      pushing: this.pushing,
      touched: [...this.touched],
      ...intent
    })
  }
}
