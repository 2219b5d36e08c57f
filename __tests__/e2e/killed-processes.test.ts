/**
 * No process of a run outlives it: after SIGKILL of the action while validation sleeps, the
 * validation command is gone at once and never writes its marker, under bubblewrap, under
 * util-linux unshare and without a sandbox; the journal recorded the command's process group.
 * And `resume: true` after such a kill starts from the attempt the run kept beside its journal.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { HostileOptions } from '../security/hostile-run.js'
import { trackedHostileRuns } from '../security/tracked-runs.js'
import { runAction } from '../support/action-runner.js'
import { lastUserMessage } from '../support/model-server.js'
import {
  processesRunning,
  readmeModel,
  sleepMarker,
  until,
  userWork,
  validationSleeping
} from './interrupted.js'
import { skipWithout } from '../support/sandbox-needs.js'

const SLEEP = sleepMarker()

const tracked = trackedHostileRuns()
// Without bubblewrap (or root for unshare) that case is left out; the run's last lines say why
// (support/sandbox-needs.ts), and PATCHSMITH_REQUIRE_SANDBOX=1 runs it anyway, to fail.
const hasBwrap = !skipWithout('bubblewrap')
const root = !skipWithout('unshare')

const cases: Array<[string, boolean, HostileOptions['inputs'], Record<string, string>]> = [
  ['bubblewrap', hasBwrap, {}, { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' }],
  ['unshare', root, {}, { PATCHSMITH_SANDBOX_BACKENDS: 'unshare' }],
  ['no sandbox', true, { sandbox: 'off' }, {}]
]

describe('a run killed while validation sleeps', () => {
  it.each(cases)('%s: no process of the run remains', async (_name, runs, inputs, env) => {
    if (!runs) return
    // A marker unique to this case: the sleeping command is found by it in /proc. The sleep
    // outlasts any signal a loaded machine is slow to send.
    const marker = sleepMarker()
    let dir = ''
    const hostile = await tracked({
      setup: (repo) => {
        dir = repo.dir
        userWork(repo)
      },
      inputs: {
        ...inputs,
        'validation-commands': `mkdir -p dist; touch dist/started.flag; sleep ${marker}; touch dist/late.flag`
      },
      env: () => env,
      signals: {
        // Once the journal holds the command's group too: that write follows the spawn, and
        // without a jail to set up the sleep can be seen before it lands.
        when: async () => {
          await validationSleeping(marker)
          await until(() => journalProcesses(dir) > 0, 'the journal to record the command')
        },
        send: ['SIGKILL']
      }
    })
    const { repo } = hostile
    expect(hostile.run.exitCode).toBe(137)
    // The parent-death signal is delivered as Node dies; the group goes within moments: the
    // sleep, the shell that would write the late marker after it, and any wrapper naming it.
    await until(() => processesRunning(marker).length === 0, 'the command to end')
    expect(journalProcesses(repo.dir)).toBeGreaterThan(0)
    // With all of them gone, nothing can still write it.
    expect(existsSync(join(repo.dir, 'dist/late.flag'))).toBe(false)
  })
})

/** How many process groups the run's journal records (0 while it has none, or no journal). */
function journalProcesses(dir: string): number {
  try {
    const journal = JSON.parse(readFileSync(join(dir, '.git/patchsmith/journal.json'), 'utf8'))
    const record = JSON.parse(journal.record as string) as { processes?: unknown[] }
    return record.processes?.length ?? 0
  } catch {
    return 0
  }
}

describe('resume after a SIGKILL', () => {
  it('validates the attempt the killed run kept before any draft call', async () => {
    const hostile = await tracked({
      setup: userWork,
      inputs: { 'validation-commands': `mkdir -p dist; touch dist/started.flag; sleep ${SLEEP}` },
      signals: {
        when: () => validationSleeping(SLEEP),
        send: ['SIGKILL']
      }
    })
    const { repo } = hostile
    expect(hostile.run.exitCode).toBe(137)
    expect(existsSync(join(repo.root, 'result.json'))).toBe(false)
    const model = await readmeModel()
    try {
      const rerun = await runAction({
        workspace: repo.dir,
        inputs: {
          issue: join(repo.root, 'artifact/issue.json'),
          'fix-plan': join(repo.root, 'artifact/plan.json'),
          'base-url': model.url,
          'api-key': 'sk-rerun-1234',
          'output-path': join(repo.root, 'result.json'),
          'max-repairs': '0',
          'validation-commands': 'test -f README.md',
          resume: 'true'
        }
      })
      expect(rerun.exitCode, rerun.stdout).toBe(0)
      expect(rerun.stdout).toMatch(/resume: from attempt 1 of a run that ended without a result/)
      const drafts = model.requests.filter(
        (request) => !lastUserMessage(request).startsWith('Write the subject line')
      )
      expect(drafts).toEqual([])
      expect(repo.gitOrigin('diff', '--name-only', 'main', 'fix/5-hostile')).toBe('README.md')
      expect(existsSync(join(repo.dir, '.git/patchsmith/last-attempt.json'))).toBe(false)
    } finally {
      await model.close()
    }
  })
})
