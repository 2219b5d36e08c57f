import { closeSync, constants, lstatSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import type { CodeAgentOutput } from '../contract/index.js'
import { formatUsd } from '../model/index.js'

export function writeResultFile(path: string, response: unknown): void {
  mkdirSync(dirname(path), { recursive: true })
  // A result path in the work tree is reachable by validation: a link left at its name is taken
  // away (it is this file's place) and never written through.
  const found = lstatSync(path, { throwIfNoEntry: false })
  if (found && !found.isFile()) rmSync(path, { force: true })
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o644
  )
  try {
    writeSync(fd, `${JSON.stringify(response, null, 2)}\n`)
  } finally {
    closeSync(fd)
  }
}

/** Every output of action.yml, set on success and on failure alike. */
export function actionOutputs(
  response: CodeAgentOutput,
  outputPath: string,
  branch: string,
  options: { pushed?: boolean } = {}
): Record<string, string> {
  const commits = response.data ?? []
  const last = commits[commits.length - 1]
  return {
    success: String(response.success),
    commits: JSON.stringify(commits),
    'output-path': outputPath,
    branch: last?.branch ?? branch,
    sha: last?.sha ?? '',
    'error-code': response.error?.code ?? '',
    'files-changed': [...new Set(commits.flatMap((commit) => commit.files_changed))].join('\n'),
    tokens: tokensOutput(response.metrics),
    cost: costOutput(response.metrics),
    'patch-id': last?.patch_id ?? '',
    pushed: String(Boolean(response.success && options.pushed && last?.sha))
  }
}

/** The `tokens` output: the run's model token totals as JSON (zeros when no call was made). */
export function tokensOutput(metrics: CodeAgentOutput['metrics']): string {
  const tokens = (metrics as { tokens?: Record<string, unknown> } | undefined)?.tokens
  const count = (key: string) => (typeof tokens?.[key] === 'number' ? (tokens[key] as number) : 0)
  return JSON.stringify({
    prompt: count('prompt'),
    cached: count('cached'),
    completion: count('completion'),
    total: count('total'),
    calls: count('calls')
  })
}

/** The `cost` output: the run's model cost in USD from model-pricing ('' without pricing). */
export function costOutput(metrics: CodeAgentOutput['metrics']): string {
  const cost = (metrics as { cost?: { usd?: unknown } } | undefined)?.cost
  return typeof cost?.usd === 'number' ? formatUsd(cost.usd) : ''
}
