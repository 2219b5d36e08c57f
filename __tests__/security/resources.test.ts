import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runAction } from '../support/action-runner.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { TYPO_EXAMPLE, TYPO_PLAN, typoReplies, typoRepo } from '../e2e/scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { until } from '../support/until.js'

const cleanups = cleanupAfterEach()

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
    const run = await runAction({
      workspace: repo.dir,
      inputs: {
        issue: `${TYPO_EXAMPLE}/issue.json`,
        'fix-plan': TYPO_PLAN,
        'base-url': model.url,
        'api-key': 'sk-test-t73',
        'validation-commands': abuse,
        'command-timeout': '2',
        'max-repairs': '0',
        'allow-plan-commands': 'true',
        'output-path': `${repo.root}/result.json`,
        'log-dir': `${repo.root}/logs`
      }
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('VALIDATION_FAILED')
    // Ended by the command-timeout (the command itself would wait 300 s), timed out once: not
    // run again unchanged, not even on the base to compare.
    const log = readFileSync(join(repo.root, 'logs', '01-build.txt'), 'utf8')
    expect(log).toContain('Killed after 2000 ms (command-timeout)')
    expect(log.match(/^\$ .*sleep 300 # patchsmith-t73/gm)?.length, log).toBe(1)
    const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8'))
    expect(result.error.details).not.toHaveProperty('preexisting')
    await until(() => survivors(marker).length === 0, 'the flood to be gone')
    expect(repo.gitOrigin('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
    expect(repo.git('ls-files', 'big.bin')).toBe('')
  })
})
