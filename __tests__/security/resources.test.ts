import { execFileSync } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { runAction } from '../support/action-runner.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { typoRepo, typoReplies, TYPO_EXAMPLE } from '../e2e/scenario.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!()
})

/** Live (not zombie) processes whose command line holds `marker`. */
function survivors(marker: string): string[] {
  const table = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
  return table
    .split('\n')
    .filter((line) => line.includes(marker) && !line.trim().startsWith('Z'))
    .filter((line) => !line.includes('ps -eo'))
}

describe('T73 (bounded form): a validation command that floods processes and disk', () => {
  it('is killed whole at command-timeout: VALIDATION_FAILED, nothing left running, nothing committed', async () => {
    const marker = `patchsmith-t73-${process.pid}`
    const repo = typoRepo()
    cleanups.push(() => repo.cleanup())
    const model = await startModelServer(replyByMatch(typoReplies().replies))
    cleanups.push(() => model.close())
    // 40 background sleepers and a 20 MB file, then a wait that never ends.
    const abuse = `for i in $(seq 1 40); do sh -c 'sleep 300 # ${marker}' & done; head -c 20000000 /dev/zero > big.bin; sleep 300 # ${marker}`
    const started = Date.now()
    const run = await runAction({
      workspace: repo.dir,
      inputs: {
        issue: `${TYPO_EXAMPLE}/issue.json`,
        'fix-plan': `${TYPO_EXAMPLE}/fix-plan.json`,
        'base-url': model.url,
        'api-key': 'sk-test-t73',
        'validation-commands': abuse,
        'command-timeout': '2',
        'max-repairs': '0',
        'allow-plan-commands': 'true',
        'output-path': `${repo.root}/result.json`
      }
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('VALIDATION_FAILED')
    expect(Date.now() - started).toBeLessThan(30_000)
    expect(survivors(marker)).toEqual([])
    expect(repo.gitOrigin('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
    expect(repo.git('ls-files', 'big.bin')).toBe('')
  }, 60_000)
})
