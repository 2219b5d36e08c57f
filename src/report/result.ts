import { outcomeOf, type CodeAgentOutput } from '../contract/index.js'
import { formatUsd, inertJson } from '../model/index.js'
import { writeOutputFile } from './output-file.js'

/** The run's result as JSON at `output-path`: see writeOutputFile for what may be there. */
export function writeResultFile(path: string, response: unknown): void {
  // inertJson: the same JSON, safe where the runner reads it (`output-path: /dev/stdout`).
  writeOutputFile(path, `${inertJson(JSON.stringify(response, null, 2))}\n`, 'output-path')
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
    pushed: String(Boolean(response.success && options.pushed && last?.sha)),
    outcome: outcomeOf(response)
  }
}

/** The `tokens` output: the run's model token totals as JSON (zeros when no call was made). */
function tokensOutput(metrics: CodeAgentOutput['metrics']): string {
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
function costOutput(metrics: CodeAgentOutput['metrics']): string {
  const cost = (metrics as { cost?: { usd?: unknown } } | undefined)?.cost
  return typeof cost?.usd === 'number' ? formatUsd(cost.usd) : ''
}
