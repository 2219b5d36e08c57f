import type { RunConfig } from '../config.js'
import type { CodeAgentInput, CodeAgentOutput } from '../contract/index.js'
import {
  replayPath,
  replayRecord,
  treeIn,
  writeReplayFile,
  type Replay,
  type RunRecorder
} from '../replay/index.js'
import type { Logger } from '../agent/index.js'
import packageJson from '../../package.json' with { type: 'json' }

/** What a one-plan run knows at its end that its replay file needs. */
export interface ReplayFacts {
  input: CodeAgentInput | undefined
  generatedPlan: boolean
  baseCommit: string | undefined
}

/**
 * Writes the run's replay file beside its result (replay.json): only for a run that reached its
 * base commit, since a replay starts there. A file that cannot be written is said, and the run's
 * outcome stays what it was.
 */
export function recordReplay(
  run: { config: RunConfig; logger: Logger; recorder: RunRecorder },
  where: { outputPath: string; logDir: string; repoDir: string },
  facts: ReplayFacts,
  response: CodeAgentOutput,
  mask: (text: string) => string
): string | undefined {
  const { input, baseCommit } = facts
  if (!input || !baseCommit) return undefined
  const path = replayPath(where.outputPath, where.logDir)
  try {
    const replay = replayRecord(
      {
        config: run.config,
        input,
        generatedPlan: facts.generatedPlan,
        baseCommit,
        recorder: run.recorder,
        outcome: outcomeOf(response, where.repoDir),
        version: packageJson.version
      },
      mask
    )
    writeReplayFile(path, replay)
    run.logger.info(`Replay recording written to ${path} (patchsmith replay ${path})`)
    return path
  } catch (error) {
    run.logger.warn(`No replay recording written to ${path}: ${(error as Error).message}`)
    return undefined
  }
}

/** Success or the error code, and each commit with the tree it holds. */
function outcomeOf(response: CodeAgentOutput, repoDir: string): Replay['outcome'] {
  const commits = (response.data ?? [])
    .filter((commit) => commit.sha)
    .map((commit) => ({
      sha: commit.sha,
      tree: treeIn(repoDir, commit.sha) ?? '',
      branch: commit.branch
    }))
  return {
    success: response.success,
    ...(response.error ? { error_code: response.error.code } : {}),
    commits
  }
}
