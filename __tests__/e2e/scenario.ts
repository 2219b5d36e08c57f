import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { PROJECT_ROOT, type ActionRun } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { createRepo, copyDirFiles, type TestRepo } from '../support/repo.js'

export const COMMIT_SUBJECT = /^(fix|feat|docs|chore|refactor)\([a-z-]+\): .{10,100}$/
export const TYPO_EXAMPLE = join(PROJECT_ROOT, 'examples/typo-fix')
/**
 * The example's docs lint as most tests run it: the script `npm run lint` runs, started directly.
 * npm itself costs about 170 ms of CPU a command, and the suite ran about 170 of them (issue 40);
 * the tests that show the example as a user runs it (the CLI's, the README's, the seed's, the
 * recordings') keep `npm run lint`.
 */
export const TYPO_LINT = 'node scripts/lint-docs.mjs'
/** The example's fix plan with TYPO_LINT as its validation command (a file of this process's). */
export const TYPO_PLAN = ((): string => {
  const plan = JSON.parse(readFileSync(join(TYPO_EXAMPLE, 'fix-plan.json'), 'utf8')) as object
  const file = join(mkdtempSync(join(tmpdir(), 'patchsmith-typo-plan-')), 'fix-plan.json')
  writeFileSync(file, JSON.stringify({ ...plan, validation_commands: [TYPO_LINT] }, null, 2))
  return file
})()
/** Every output action.yml declares: a run sets each one, on success and on failure. */
export const ACTION_OUTPUTS = Object.keys(
  (parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as { outputs: object }).outputs
)

export interface RecordedReplies {
  model: string
  replies: Array<{ contains: string; reply: string }>
}

export function typoReplies(): RecordedReplies {
  return JSON.parse(readFileSync(join(TYPO_EXAMPLE, 'replies.json'), 'utf8')) as RecordedReplies
}

/** `patchsmith run` on the typo example: the repository, its inputs, the model and the lint check. */
export function typoCliArgs(repoDir: string, baseUrl: string): string[] {
  return [
    'run',
    '--repo',
    repoDir,
    '--issue',
    `${TYPO_EXAMPLE}/issue.json`,
    '--plan',
    `${TYPO_EXAMPLE}/fix-plan.json`,
    '--triage',
    `${TYPO_EXAMPLE}/triage-result.json`,
    '--base-url',
    baseUrl,
    '--validation-command',
    'npm run lint'
  ]
}

export function typoRepo(): TestRepo {
  return createRepo({ files: copyDirFiles(join(TYPO_EXAMPLE, 'repo')), prefix: 'typo' })
}

/** Writes inputs (issue, plan, …) as files beside the work tree, as a downloaded artifact would be. */
export function writeInputs(
  repo: TestRepo,
  files: Record<string, unknown>
): Record<string, string> {
  const dir = join(repo.root, 'artifact')
  mkdirSync(dir, { recursive: true })
  const paths: Record<string, string> = {}
  for (const [name, value] of Object.entries(files)) {
    paths[name] = join(dir, name)
    writeFileSync(paths[name]!, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
  }
  return paths
}

/** The state a failed or refused run must leave: on the base branch, nothing changed or added. */
export function expectUntouched(repo: TestRepo, branch: string, baseSha: string): string[] {
  const problems: string[] = []
  if (repo.git('status', '--porcelain') !== '')
    problems.push(`dirty: ${repo.git('status', '--porcelain')}`)
  if (repo.git('rev-parse', 'HEAD') !== baseSha) problems.push('HEAD moved')
  if (repo.git('symbolic-ref', '--short', 'HEAD') !== 'main') problems.push('not on main')
  if (repo.git('branch', '--list', branch) !== '') problems.push(`local branch ${branch} exists`)
  if (repo.gitOrigin('branch', '--list', branch) !== '')
    problems.push(`origin branch ${branch} exists`)
  return problems
}

/**
 * The action run in-process on an issue and a plan written beside the work tree as an artifact
 * would be: `issue` and `fix-plan` point at them, the rest of `inputs` as given.
 */
export function runOnPlan(
  repo: TestRepo,
  given: {
    issue: object
    plan: object
    inputs: Record<string, string>
    env?: Record<string, string>
  }
): Promise<ActionRun> {
  const files = writeInputs(repo, { 'issue.json': given.issue, 'plan.json': given.plan })
  return runActionInProcess({
    workspace: repo.dir,
    ...(given.env ? { env: given.env } : {}),
    inputs: { issue: files['issue.json']!, 'fix-plan': files['plan.json']!, ...given.inputs }
  })
}
