import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { largeSourceFile } from '../../bench/lib/fixtures.js'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { type ActionRun, runAction } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import {
  lastUserMessage,
  replyByMatch,
  startModelServer,
  type ModelServer,
  type ReplyScript
} from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import {
  expectUntouched,
  TYPO_EXAMPLE,
  TYPO_LINT,
  TYPO_PLAN,
  typoReplies,
  typoRepo,
  writeInputs
} from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const CANARY = 'sk-canary-7f3a9c2e5b1d4068QZ'
const BRANCH = 'docs/42-fix-typo-readme'
const cleanups = cleanupAfterEach()

async function serve(script: ReplyScript): Promise<ModelServer> {
  const server = await startModelServer(script)
  cleanups.push(() => server.close())
  return server
}

function track(repo: TestRepo): TestRepo {
  cleanups.push(() => repo.cleanup())
  return repo
}

const TYPO_DIFF = typoReplies().replies[0]!.reply
const COMMIT_SUBJECT_REPLY = 'docs(readme): correct typo in installation section'

/** The typo scenario through the action's entry (in-process, or `node dist/index.js`). */
async function typoRun(
  repo: TestRepo,
  script: ReplyScript,
  inputs: Record<string, string> = {},
  through: 'in-process' | 'process' = 'in-process'
): Promise<{ run: ActionRun; server: ModelServer; result: CodeAgentOutput }> {
  const server = await serve(script)
  const run = await (through === 'process' ? runAction : runActionInProcess)({
    workspace: repo.dir,
    inputs: {
      issue: `${TYPO_EXAMPLE}/issue.json`,
      'fix-plan': TYPO_PLAN,
      'triage-result': `${TYPO_EXAMPLE}/triage-result.json`,
      'base-url': server.url,
      'api-key': CANARY,
      'validation-commands': TYPO_LINT,
      'output-path': `${repo.root}/result.json`,
      'log-dir': `${repo.root}/logs`,
      push: 'false',
      ...inputs
    }
  })
  const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
  return { run, server, result }
}

/** The commit-message request gets its subject, every other (draft) request the diff. */
const typoScript = (draft: string = TYPO_DIFF) =>
  replyByMatch([{ contains: 'Conventional Commit', reply: COMMIT_SUBJECT_REPLY }], draft)

interface RunMetrics {
  model_retries: Record<string, number>
  tokens: {
    prompt: number
    completion: number
    total: number
    per_call: Array<Record<string, unknown>>
  }
  git_processes: number
  phase_ms: Record<string, number>
  budget: { stopped_by?: string }
}

const metricsOf = (result: CodeAgentOutput) => result.metrics as unknown as RunMetrics

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

describe('the API key (canary)', () => {
  it('appears nowhere but the Authorization header; logs show its last two characters', async () => {
    const repo = track(typoRepo())
    const { run, server, result } = await typoRun(repo, typoScript(), {
      'model-headers': 'X-Gateway-Team: patchsmith-tests-0001'
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(result.success).toBe(true)

    // The runner consumes ::add-mask:: lines; everything else must not hold the key.
    const printed = run.stdout
      .split('\n')
      .filter((line) => !line.startsWith('::add-mask::'))
      .join('\n')
    expect(run.stdout).toContain(`::add-mask::${CANARY}`)
    expect(run.stdout).toContain('::add-mask::patchsmith-tests-0001')
    expect(printed).toContain('key …QZ')
    expect(printed).not.toContain(CANARY.slice(0, -2))
    const places = {
      printed,
      stderr: run.stderr,
      summary: run.summary,
      outputs: JSON.stringify(run.outputs),
      result: readFileSync(`${repo.root}/result.json`, 'utf8'),
      logs: filesUnder(`${repo.root}/logs`)
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n'),
      git: [
        repo.git('log', '--all', '-p', '--format=%H %B'),
        readFileSync(join(repo.dir, '.git/config'), 'utf8')
      ].join('\n')
    }
    for (const [place, text] of Object.entries(places)) {
      expect(text, place).not.toContain(CANARY)
    }
    // The endpoint saw it only as the bearer token.
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${CANARY}`)
      expect(request.headers['x-gateway-team']).toBe('patchsmith-tests-0001')
      const rest = { ...request.headers, authorization: undefined }
      expect(JSON.stringify([rest, request.path, request.body])).not.toContain(CANARY)
    }
  })
})

describe('the style config', () => {
  it('is read from .editorconfig by the bundle (its WASM parser beside dist/index.js)', async () => {
    const repo = track(typoRepo())
    repo.write('.editorconfig', 'root = true\n[*]\nindent_size = 2\n[*.md]\nindent_style = tab\n')
    repo.commitAll('editorconfig')
    const { run, server } = await typoRun(repo, typoScript(), {}, 'process')
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    const draft = server.requests[0]!.body.messages[1].content as string
    expect(draft).toContain('- Style: indent with tabs, LF line endings, a final newline')
  })
})

describe('retries, timeouts and broken replies, end to end', () => {
  it('waits out a 429 with retry-after: 1, then succeeds and counts the retry', async () => {
    const repo = track(typoRepo())
    let limited = false
    const typo = typoScript()
    const { run, result } = await typoRun(repo, (request) => {
      if (!limited) {
        limited = true
        return { status: 429, content: 'Rate limit reached', headers: { 'retry-after': '1' } }
      }
      return typo(request)
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.durationMs).toBeGreaterThanOrEqual(1_000)
    expect(run.stdout).toContain('retry 1 of 4 in 1.0 s (retry-after)')
    const metrics = metricsOf(result)
    expect(metrics.model_retries.rate_limit).toBe(1)
    expect(metrics.tokens.per_call[0]).toMatchObject({ label: 'README.md', attempt: 1, retries: 1 })
    expect(JSON.parse(run.outputs.tokens!)).toEqual({
      prompt: metrics.tokens.prompt,
      cached: 0,
      completion: metrics.tokens.completion,
      total: metrics.tokens.prompt + metrics.tokens.completion,
      calls: 2
    })
    expect(metrics.tokens.total).toBeGreaterThan(0)
    expect(metrics.git_processes).toBeGreaterThan(0)
    expect(Object.keys(metrics.phase_ms)).toEqual(
      expect.arrayContaining(['load', 'draft', 'apply', 'validate', 'commit'])
    )
  })

  it.each([
    ['a cut stream', { content: TYPO_DIFF, cutStreamAfter: 2 }],
    ['malformed JSON', { body: '{"id": "x", "choices": [' }]
  ])('turns %s into MODEL_ERROR with nothing written', async (_name, reply) => {
    const repo = track(typoRepo())
    const baseSha = repo.git('rev-parse', 'HEAD')
    const { run, result } = await typoRun(repo, () => reply, { 'model-retries': '0' })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('MODEL_ERROR')
    expect(result.error?.message).toMatch(/reply/)
    expect(expectUntouched(repo, BRANCH, baseSha)).toEqual([])
  })

  it('ends a silent endpoint at time-limit with TIMEOUT, rolled back', async () => {
    const repo = track(typoRepo())
    const baseSha = repo.git('rev-parse', 'HEAD')
    const { run, result } = await typoRun(repo, () => ({ hang: true }), {
      'time-limit': '2',
      // Far beyond the action's own 60 s backstop in runAction: only the time-limit can end it.
      'model-timeout': '600'
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('TIMEOUT')
    expect(result.error?.message).toContain('time-limit of 2 s')
    expect(metricsOf(result).budget.stopped_by).toBe('time-limit')
    expect(expectUntouched(repo, BRANCH, baseSha)).toEqual([])
  })
})

describe('token budgets, end to end', () => {
  function largeRepo(): TestRepo {
    return track(
      createRepo({ files: { 'src/handlers.ts': largeSourceFile(3_000) }, prefix: 'large' })
    )
  }

  function plan(lineRange?: [number, number]) {
    return {
      branch_name: 'fix/7-handler-comment',
      plan_steps: ['Fix the comment of handler 150'],
      file_changes: [
        {
          path: 'src/handlers.ts',
          operation: 'MODIFY',
          ...(lineRange ? { line_range: lineRange } : {}),
          description: 'Say "request total" in the comment of handler150'
        }
      ],
      validation_commands: []
    }
  }

  async function run(
    repo: TestRepo,
    server: ModelServer,
    lineRange?: [number, number],
    extra = {}
  ) {
    const files = writeInputs(repo, {
      'issue.json': { number: 7, title: 'Wrong comment in handler150', body: 'See handler150.' },
      'plan.json': plan(lineRange)
    })
    return runActionInProcess({
      workspace: repo.dir,
      inputs: {
        issue: files['issue.json']!,
        'fix-plan': files['plan.json']!,
        'base-url': server.url,
        'api-key': 'k-budget-test',
        push: 'false',
        'output-path': `${repo.root}/result.json`,
        ...extra
      }
    })
  }

  it('sends a numbered window of a 3 000-line file and applies the edit to the real file', async () => {
    const repo = largeRepo()
    const server = await serve(
      replyByMatch(
        [
          {
            contains: 'Conventional Commit',
            reply: 'fix(handlers): name the request total in handler150'
          }
        ],
        [
          '--- a/src/handlers.ts',
          '+++ b/src/handlers.ts',
          '@@ -1505,3 +1505,3 @@',
          '   }',
          '-  // keep the running total for request 150',
          '+  // keep the request total for request 150',
          '   total += value',
          ''
        ].join('\n')
      )
    )
    const action = await run(repo, server, [1_501, 1_510])
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    const prompt = lastUserMessage(server.requests[0]!)
    expect(prompt).toContain('src/handlers.ts has 3000 lines; only lines')
    expect(prompt).toContain('1506 |   // keep the running total for request 150')
    const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8'))
    expect(result.metrics.draft_context[0]).toMatchObject({ path: 'src/handlers.ts' })
    expect(result.metrics.draft_context[0].tokens).toBeLessThanOrEqual(5_000)
    expect(repo.git('show', 'fix/7-handler-comment:src/handlers.ts')).toContain(
      '  // keep the request total for request 150\n'
    )
  })

  it('refuses a 3 000-line file without a line_range: TOKEN_BUDGET_EXCEEDED, no model call', async () => {
    const repo = largeRepo()
    const baseSha = repo.git('rev-parse', 'HEAD')
    const server = await serve(() => 'never asked')
    const action = await run(repo, server)
    expect(action.exitCode).toBe(1)
    expect(action.outputs['error-code']).toBe('TOKEN_BUDGET_EXCEEDED')
    expect(action.stdout).toMatch(
      /needs \d+ tokens even at its smallest, more than max-tokens-per-draft \(5000\)/
    )
    expect(server.requests).toHaveLength(0)
    expect(expectUntouched(repo, 'fix/7-handler-comment', baseSha)).toEqual([])
  })

  it('stops before a call that would pass max-total-tokens', async () => {
    const repo = largeRepo()
    const baseSha = repo.git('rev-parse', 'HEAD')
    const server = await serve(() => 'never asked')
    const action = await run(repo, server, [1_501, 1_510], { 'max-total-tokens': '1000' })
    expect(action.outputs['error-code']).toBe('TOKEN_BUDGET_EXCEEDED')
    expect(action.stdout).toContain('max-total-tokens (1000) would be passed')
    expect(server.requests).toHaveLength(0)
    expect(expectUntouched(repo, 'fix/7-handler-comment', baseSha)).toEqual([])
  })
})

describe('max-repairs', () => {
  it('ends after the allowed rounds (1 + max-repairs) with the last failure', async () => {
    const repo = track(typoRepo())
    const baseSha = repo.git('rev-parse', 'HEAD')
    const { run, server, result } = await typoRun(repo, typoScript(), {
      // Fails unlike the base (which still has the typo), so a repair would be asked.
      'validation-commands': 'grep -c teh README.md >&2; exit 3',
      'allow-plan-commands': 'true',
      'max-repairs': '0'
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('VALIDATION_FAILED')
    expect(result.error?.details?.stats).toMatchObject({
      stop_reason: 'repairs-exhausted',
      attempts: 1
    })
    expect(server.requests).toHaveLength(1)
    expect(expectUntouched(repo, BRANCH, baseSha)).toEqual([])
  })
})
