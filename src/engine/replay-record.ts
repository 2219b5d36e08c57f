import type { RunConfig } from '../config.js'
import type { CodeAgentInput, CodeAgentOutput } from '../contract/index.js'
import {
  replayPath,
  replayRecord,
  writeReplayFile,
  type Replay,
  type RunRecorder
} from '../replay/index.js'
import type { Logger } from '../run/index.js'
import type { Git } from '../git/index.js'
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
export async function recordReplay(
  run: { config: RunConfig; logger: Logger; recorder: RunRecorder; git?: Git },
  where: { outputPath: string; logDir: string; repoDir: string },
  facts: ReplayFacts,
  response: CodeAgentOutput,
  mask: (text: string) => string
): Promise<string | undefined> {
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
        outcome: await outcomeOf(response, run.git),
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

/**
 * Success or the error code, and each commit with the tree it holds, read by the run's own
 * sealed git (never a `git` validation put on PATH).
 */
async function outcomeOf(
  response: CodeAgentOutput,
  git: Git | undefined
): Promise<Replay['outcome']> {
  const commits = []
  for (const commit of response.data ?? []) {
    if (!commit.sha) continue
    const out = await git?.exec(['rev-parse', '--verify', '--quiet', `${commit.sha}^{tree}`], {
      allowFailure: true
    })
    commits.push({ sha: commit.sha, tree: out?.stdout.trim() ?? '', branch: commit.branch })
  }
  return {
    success: response.success,
    ...(response.error ? { error_code: response.error.code } : {}),
    commits
  }
}
