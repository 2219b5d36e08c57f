import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { ReplyScript } from '../support/model-server.js'
import { FRUIT_BRANCH, fruitRepo, fruitReplies, runOnFruit, swap, type FruitRun } from './fruit.js'
import { expectUntouched } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const BRANCH = FRUIT_BRANCH

async function fruitRun(
  script: ReplyScript,
  inputs: Record<string, string> = {},
  files: Record<string, string> = {},
  env: Record<string, string> = {}
): Promise<FruitRun> {
  const repo = fruitRepo(files)
  cleanups.push(() => repo.cleanup())
  return runOnFruit(repo, script, inputs, env)
}

describe('the repair loop through the action', () => {
  it("removes the files a failed validation created, and keeps the user's own", async () => {
    const repo = fruitRepo()
    cleanups.push(() => repo.cleanup())
    writeFileSync(`${repo.dir}/mine.txt`, 'my notes\n')
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'banana')]), {
      'validation-commands': 'echo report > created.txt; sh check.sh',
      'max-repairs': '0'
    })
    expect(run.result.error?.code).toBe('VALIDATION_FAILED')
    expect(existsSync(`${repo.dir}/created.txt`)).toBe(false)
    expect(readFileSync(`${repo.dir}/mine.txt`, 'utf8')).toBe('my notes\n')
    expect(repo.git('status', '--porcelain')).toBe('?? mine.txt')
  })

  it('commits after the first repair fixes a broken edit, with numbered logs of both attempts', async () => {
    const run = await fruitRun(fruitReplies([swap('apple', 'banana'), swap('banana', 'kiwi')]))
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.result.metrics).toMatchObject({ attempts: 2, repairs: 1, stop_reason: 'validated' })
    expect(run.repo.gitOrigin('show', `${BRANCH}:fruit.txt`)).toBe('kiwi')
    expect(readdirSync(run.logDir).sort()).toEqual([
      '01-build.txt',
      '01-reply.txt',
      '01-request.json',
      '02-build.txt',
      '02-reply.txt',
      '02-request.json'
    ])
    expect(readFileSync(`${run.logDir}/01-build.txt`, 'utf8')).toContain(
      'error: wrong fruit banana'
    )
    expect(readFileSync(`${run.logDir}/02-build.txt`, 'utf8')).toContain('fruit ok')
    const repairRequest = JSON.stringify(run.server.requests[1]!.body)
    expect(repairRequest).toContain('error: wrong fruit banana')
    expect(run.repo.gitOrigin('ls-tree', '-r', '--name-only', BRANCH)).not.toContain('logs')
  })

  it('gives up after three failing repairs: VALIDATION_FAILED with the last output, 1 + 3 model calls', async () => {
    const run = await fruitRun(
      fruitReplies([
        swap('apple', 'banana'),
        swap('banana', 'cherry'),
        swap('cherry', 'damson'),
        swap('damson', 'elderberry')
      ])
    )
    expect(run.exitCode).toBe(1)
    expect(run.server.requests).toHaveLength(4)
    expect(run.result.error!.code).toBe('VALIDATION_FAILED')
    expect(run.result.error!.details).toMatchObject({
      command: 'sh check.sh',
      exit_code: 1,
      attempts: 4
    })
    expect(String(run.result.error!.details!.stderr)).toContain('wrong fruit elderberry')
    expect(run.result.metrics).toMatchObject({
      attempts: 4,
      repairs: 3,
      stop_reason: 'repairs-exhausted'
    })
    expect(expectUntouched(run.repo, BRANCH, run.baseSha)).toEqual([])
    // Only the newest version of the file reaches a repair prompt.
    const third = JSON.stringify(run.server.requests[2]!.body)
    expect(third).toContain('cherry')
    expect(third).not.toContain('banana')
    expect(third).not.toContain('apple')
  })

  it('stops early when a repair brings back the same failure, and says why', async () => {
    // banana and cherry fail alike (six letters), and unlike the base's apple.
    const sameError = `read -r f < fruit.txt
if [ "$f" != kiwi ]; then echo "error: not a kiwi but \${#f} letters" >&2; exit 1; fi
`
    const run = await fruitRun(
      fruitReplies([swap('apple', 'banana'), swap('banana', 'cherry'), swap('cherry', 'kiwi')]),
      {},
      { 'check.sh': sameError }
    )
    expect(run.exitCode).toBe(1)
    expect(run.server.requests).toHaveLength(2)
    expect(run.result.error!.code).toBe('VALIDATION_FAILED')
    expect(run.result.error!.details!.stop_reason).toBe('same-failure')
    expect(run.result.error!.message).toContain(
      'Stopped early: the repair brought back the same failure'
    )
  })

  it('stops early when a repair changes nothing', async () => {
    const run = await fruitRun(
      fruitReplies([swap('apple', 'banana'), 'NO_CHANGES', swap('banana', 'kiwi')])
    )
    expect(run.exitCode).toBe(1)
    expect(run.server.requests).toHaveLength(2)
    expect(run.result.error!.details!.stop_reason).toBe('no-change')
  })

  it('reports a failure that the base already has as preexisting, and lets on-preexisting-failure decide', async () => {
    const inputs = { 'validation-commands': 'sh check.sh\nnode broken.js' }
    const files = { 'broken.js': 'console.error("error: broken since forever"); process.exit(2)\n' }
    const run = await fruitRun(fruitReplies([swap('apple', 'kiwi'), 'NO_CHANGES']), inputs, files)
    expect(run.exitCode).toBe(1)
    // No repair is asked for: it could not fix what the change did not break.
    expect(run.server.requests).toHaveLength(1)
    expect(run.result.error!.details).toMatchObject({
      command: 'node broken.js',
      preexisting: true,
      same_failure_on_base: true,
      stop_reason: 'preexisting'
    })
    expect(run.result.error!.message).toContain('fails the same way on the base branch')
    expect(run.result.error!.message).toContain('so no repair was asked for')

    const kept = await fruitRun(
      fruitReplies([swap('apple', 'kiwi')]),
      { ...inputs, 'on-preexisting-failure': 'commit' },
      files
    )
    expect(kept.exitCode, kept.stdout).toBe(0)
    const [commit] = kept.result.data!
    expect(commit!.validation_results.map((r) => [r.command, r.exit_code, r.preexisting])).toEqual([
      ['sh check.sh', 0, undefined],
      ['node broken.js', 2, true]
    ])
  })

  it('auto-fixes a lint failure in the planned file and undoes what the fixer did elsewhere', async () => {
    const lint = `grep -q ' $' fruit.txt && { echo "error: trailing space" >&2; exit 1; }; exit 0`
    const fix = `sed -i 's/ *$//' fruit.txt && echo touched >> check.sh`
    const run = await fruitRun(fruitReplies([swap('apple', 'kiwi  ')]), {
      // Named steps are lines of validation-commands: `lint:` and its fixer `lint-fix:`.
      'validation-commands': `lint: ${lint}\nlint-fix: ${fix}\nsh check.sh`
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.server.requests).toHaveLength(2) // the draft and the commit message: no repair
    const [commit] = run.result.data!
    expect(commit!.validation_results[0]).toMatchObject({
      step: 'lint',
      exit_code: 0,
      auto_fixed: true
    })
    expect(run.repo.gitOrigin('show', `${BRANCH}:fruit.txt`)).toBe('kiwi')
    expect(run.repo.gitOrigin('diff', '--name-only', run.baseSha, BRANCH)).toBe('fruit.txt')
    expect(commit!.diff).toContain('+kiwi\n')
  })

  it('keeps a canary secret of the parent environment out of every output, even when a command prints env', async () => {
    const canary = 'ghs_CANARYcanary0123456789abcdefghijklmn'
    const run = await fruitRun(
      fruitReplies([swap('apple', 'kiwi')]),
      { 'validation-commands': 'sh check.sh\nenv; echo "token=$GITHUB_TOKEN"; exit 1' },
      {},
      { GITHUB_TOKEN: canary, EXTRA_SECRET: 'zX9!canary-Q7' }
    )
    expect(run.exitCode).toBe(1)
    const everything = [
      // The runner consumes ::add-mask:: commands; everything else must be masked already.
      run.stdout.replace(/^::add-mask::.*$/gm, ''),
      run.summary,
      JSON.stringify(run.result),
      ...readdirSync(run.logDir).map((name) => readFileSync(`${run.logDir}/${name}`, 'utf8'))
    ].join('\n')
    expect(everything).toContain('token=')
    expect(everything).not.toContain('CANARYcanary')
    expect(everything).not.toContain('zX9!canary-Q7')
    expect(everything).not.toContain('sk-test-repair')
    expect(existsSync(run.logDir)).toBe(true)
  })
})
