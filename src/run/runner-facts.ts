import { isAbsolute } from 'node:path'
import { tmpdir } from 'node:os'

/**
 * Where a run runs, read once by an entry (the action, the CLI) from its variables and passed
 * down: nothing below the entries reads `process.env`.
 */
export interface RunnerFacts {
  /** The triggering event's payload (GITHUB_EVENT_PATH), for the default issue. */
  eventPath?: string
  /** `owner/repo`, for the failure comment and label. */
  repository?: string
  /** GITHUB_API_URL: GitHub.com's API, an Enterprise Server's, or a test's loopback. */
  apiUrl: string
  /** GITHUB_SERVER_URL, for links to the workflow run. */
  serverUrl: string
  runId?: string
  /** RUNNER_TEMP when absolute, else the system's temp folder: results and logs by default. */
  tempDir: string
  /** The entry's variables: validation's allowlist and the folders it must not see come from them. */
  vars: Readonly<Record<string, string | undefined>>
  /** The entry's working folder: input files are named as the user sees them, from there. */
  cwd: string
  /**
   * PATCHSMITH_GIT_DATA_TIMEOUT_SECONDS: how long each Git Data API request of
   * `commit-signing: github` waits for its answer (unset: the client's 60 s).
   */
  gitDataTimeoutMs?: number
}

export function runnerFacts(
  vars: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd()
): RunnerFacts {
  const temp = vars.RUNNER_TEMP
  return {
    cwd,
    eventPath: vars.GITHUB_EVENT_PATH || undefined,
    repository: vars.GITHUB_REPOSITORY || undefined,
    apiUrl: vars.GITHUB_API_URL || 'https://api.github.com',
    serverUrl: vars.GITHUB_SERVER_URL || 'https://github.com',
    runId: vars.GITHUB_RUN_ID || undefined,
    tempDir: temp && isAbsolute(temp) ? temp : tmpdir(),
    vars: { ...vars },
    gitDataTimeoutMs: secondsAsMs(vars.PATCHSMITH_GIT_DATA_TIMEOUT_SECONDS)
  }
}

/** A positive number of seconds (fractions too) in ms; anything else is unset. */
function secondsAsMs(text: string | undefined): number | undefined {
  const seconds = Number(text)
  return text && Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds * 1000) : undefined
}

/** The workflow run's page, when the runner said which run this is. */
export function runUrl(facts: RunnerFacts): string | undefined {
  if (!facts.repository || !facts.runId) return undefined
  return `${facts.serverUrl}/${facts.repository}/actions/runs/${facts.runId}`
}
