/** One run of the bundled action on a plan, for the benchmarks: the run and its metrics. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runAction, type ActionRun } from '../../__tests__/support/action-runner.js'
import { writeInputs } from '../../__tests__/e2e/scenario.js'
import type { TestRepo } from '../../__tests__/support/repo.js'

/** The parts of the result's metrics the benchmarks read. */
export interface BenchMetrics {
  phase_ms: Record<string, number>
  tokens: {
    prompt: number
    cached: number
    completion: number
    calls: number
    per_call: Array<{ label: string; prompt_tokens: number; cached_prompt_tokens: number }>
  }
}

export async function runPlan(
  repo: TestRepo,
  baseUrl: string,
  files: { issue: object; plan: object },
  inputs: Record<string, string> = {}
): Promise<{ run: ActionRun; metrics: BenchMetrics }> {
  const written = writeInputs(repo, { 'issue.json': files.issue, 'plan.json': files.plan })
  const result = join(repo.root, 'result.json')
  const run = await runAction({
    workspace: repo.dir,
    inputs: {
      issue: written['issue.json']!,
      'fix-plan': written['plan.json']!,
      'base-url': baseUrl,
      'api-key': 'sk-bench-0001',
      push: 'false',
      'upload-artifact': 'false',
      'output-path': result,
      'log-dir': join(repo.root, 'logs'),
      ...inputs
    }
  })
  if (run.exitCode !== 0) throw new Error(`the action failed:\n${run.stdout}\n${run.stderr}`)
  return { run, metrics: JSON.parse(readFileSync(result, 'utf8')).metrics }
}
