/**
 * The result's pull request (issue 27 point 5): a committed run's result file carries the title
 * and the body (Fixes #N, the proof table, the run link under Actions), shaped once by the
 * engine and masked; the action writes its body file from it, the CLI prints it and writes it
 * with --pull-request-body FILE. A failed run has none. The committed run goes through the
 * bundle; the other action runs are in-process (src/main.ts's run()), sparing a Node start each.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runAction, runCli, type ActionRunOptions } from '../support/action-runner.js'
import { runActionInProcess, runCliInProcess } from '../support/in-process.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { startGitHubServer } from '../support/github-server.js'
import { TYPO_EXAMPLE, typoCliArgs, typoRepo, typoReplies } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()
const RUN_URL = 'https://github.com/acme/widgets/actions/runs/5151'
const API_KEY = 'sk-test-prtext-secret-0001'
const BRANCH = 'docs/42-fix-typo-readme'
const PROOF_ROW = '| `npm run lint` | ❌ fails | ✅ passes | `npm run lint` | — |'

async function world(subject = 'docs(readme): correct typo in install') {
  const work = typoRepo()
  cleanups.push(() => work.cleanup())
  const diff = typoReplies().replies[0]!.reply
  const model = await startModelServer(
    replyByMatch([{ contains: 'Conventional Commit', reply: { content: subject } }], {
      content: diff
    })
  )
  cleanups.push(() => model.close())
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  return { work, model, github }
}

type World = Awaited<ReturnType<typeof world>>

function actionOptions(w: World, inputs: Record<string, string> = {}): ActionRunOptions {
  return {
    workspace: w.work.dir,
    env: {
      GITHUB_API_URL: w.github.url,
      GITHUB_RUN_ID: '5151',
      GITHUB_SERVER_URL: 'https://github.com'
    },
    inputs: {
      issue: `${TYPO_EXAMPLE}/issue.json`,
      'fix-plan': `${TYPO_EXAMPLE}/fix-plan.json`,
      'base-url': w.model.url,
      'api-key': API_KEY,
      'github-token': 'ghs_prtexttoken0000000000000000000000000',
      'output-path': `${w.work.root}/result.json`,
      'log-dir': `${w.work.root}/logs`,
      'validation-commands': 'npm run lint',
      push: 'false',
      ...inputs
    }
  }
}

const resultFile = (w: World) =>
  JSON.parse(readFileSync(`${w.work.root}/result.json`, 'utf8')) as CodeAgentOutput

describe('the pull request in the result (the action)', () => {
  it('a committed run carries the title and body; the body file is that body (node dist/index.js)', async () => {
    const w = await world()
    const run = await runAction(actionOptions(w))
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    const result = resultFile(w)
    const pr = result.pull_request!
    expect(pr.title).toBe('docs(readme): correct typo in install')
    expect(pr.body).toContain('### What changed\n\n- docs(readme): correct typo in install')
    // The issue's own reference, made inert: it links and closes nothing but through Fixes #42.
    expect(pr.body).toContain('### Why\n\n#\u200b42: Fix typo in README')
    expect(pr.body).toContain('### Proof')
    expect(pr.body).toContain(PROOF_ROW)
    expect(pr.body).toContain(`| Run | [logs and artifact](${RUN_URL}) |`)
    expect(pr.body).toMatch(/tokens \(\d+ in, \d+ out\) · 2 model calls/)
    expect(pr.body).toMatch(/\n\nFixes #42\n$/)
    // The action's outputs come from the result: no second rendering.
    expect(run.outputs['pull-request-title']).toBe(pr.title)
    expect(run.outputs['pull-request-body-path']).toBe(`${w.work.root}/pull-request.md`)
    expect(readFileSync(run.outputs['pull-request-body-path']!, 'utf8')).toBe(pr.body)
  })

  it('a failed run has none, and no body file', async () => {
    const w = await world()
    w.work.git('push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`)
    const run = await runActionInProcess(actionOptions(w, { push: 'true' }))
    expect(run.exitCode).toBe(1)
    const result = resultFile(w)
    expect(result.error?.code).toBe('BRANCH_EXISTS')
    expect(result).not.toHaveProperty('pull_request')
    expect(run.outputs['pull-request-title']).toBe('')
    expect(run.outputs['pull-request-body-path']).toBe('')
    expect(existsSync(`${w.work.root}/pull-request.md`)).toBe(false)
  })

  it("a secret in the model's commit message reaches neither the title nor the body", async () => {
    const w = await world(`docs(readme): correct typo, key ${API_KEY} inside`)
    const run = await runActionInProcess(actionOptions(w))
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    const raw = readFileSync(`${w.work.root}/result.json`, 'utf8')
    expect(raw).not.toContain(API_KEY)
    const pr = resultFile(w).pull_request!
    expect(pr.title).toBe('docs(readme): correct typo, key *** inside')
    expect(pr.body).toContain('- docs(readme): correct typo, key \\*\\*\\* inside')
    const file = readFileSync(run.outputs['pull-request-body-path']!, 'utf8')
    expect(file).not.toContain(API_KEY)
    expect(run.outputs['pull-request-title']).not.toContain(API_KEY)
  })
})

describe('the pull request in the result (node dist/cli.js)', () => {
  function bodyPath(): string {
    const dir = mkdtempSync(join(tmpdir(), 'patchsmith-prbody-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    return join(dir, 'pr.md')
  }

  it('prints it in the JSON and writes the body with --pull-request-body FILE', async () => {
    const w = await world()
    const path = bodyPath()
    const run = await runCli(
      ['--json', ...typoCliArgs(w.work.dir, w.model.url), '--no-push', '--pull-request-body', path],
      { env: { OPENAI_API_KEY: API_KEY } }
    )
    expect(run.exitCode, run.stderr).toBe(0)
    const pr = (JSON.parse(run.stdout) as CodeAgentOutput).pull_request!
    expect(pr.title).toBe('docs(readme): correct typo in install')
    expect(pr.body).toContain(PROOF_ROW)
    expect(pr.body).toMatch(/\n\nFixes #42\n$/)
    // Off Actions there is no run to link.
    expect(pr.body).not.toContain('| Run |')
    expect(readFileSync(path, 'utf8')).toBe(pr.body)
    expect(run.stderr).toContain(`Pull-request body written to ${path}`)
  })

  it('a dry run writes no body file: nothing was committed, no pull request to open', async () => {
    const w = await world()
    const path = bodyPath()
    const run = await runCliInProcess(
      [...typoCliArgs(w.work.dir, w.model.url), '--dry-run', '--pull-request-body', path],
      { env: { OPENAI_API_KEY: API_KEY } }
    )
    expect(run.exitCode, run.stderr).toBe(0)
    expect(existsSync(path)).toBe(false)
    expect(run.stderr).toContain(`Dry run: no pull request to open, ${path} not written`)
  })

  it('a failed run prints none and writes no body file', async () => {
    const w = await world()
    w.work.git('push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`)
    const path = bodyPath()
    const run = await runCli(
      ['--json', ...typoCliArgs(w.work.dir, w.model.url), '--push', '--pull-request-body', path],
      { env: { OPENAI_API_KEY: API_KEY } }
    )
    expect(run.exitCode, run.stderr).toBe(1)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.error?.code).toBe('BRANCH_EXISTS')
    expect(result).not.toHaveProperty('pull_request')
    expect(existsSync(path)).toBe(false)
  })
})
