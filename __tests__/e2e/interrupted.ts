/** Helpers for runs that are interrupted: cancelled (cancel.test.ts) or killed (killed.test.ts). */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { README_FIX } from '../security/hostile-run.js'
import type { TestRepo } from '../support/repo.js'
import { runAction } from '../support/action-runner.js'
import { processesRunning } from '../support/processes.js'
import { until } from '../support/until.js'
import { lastUserMessage, startModelServer } from '../support/model-server.js'

export { processesRunning, until }

/**
 * A `sleep` argument no other test's command has: its process is found by it in /proc. Five
 * minutes: the run is interrupted while it sleeps however slowly a loaded machine gets there.
 */
export function sleepMarker(): string {
  return `300.${process.pid % 1000}${Math.floor(Math.random() * 1e6)}`
}

/**
 * The validation command is running (its `sleep <marker>` is on the host): what it writes is not
 * seen in the work tree before it ends when it runs on an overlay of the tree.
 */
export function validationSleeping(marker: string): Promise<void> {
  // The sleep itself (its arguments NUL-separated), not a wrapper whose script names it.
  return until(() => processesRunning(`sleep\0${marker}\0`).length > 0, 'validation')
}

/** The user's own work, left uncommitted before the run: a tracked edit and a new file. */
export function userWork(repo: TestRepo): void {
  writeFileSync(join(repo.dir, 'src/a.js'), 'export const a = 42 // mine\n')
  writeFileSync(join(repo.dir, 'notes.txt'), 'my notes\n')
}

/** The README fix's model; its draft answered once `hold` (if given) has resolved. */
export function readmeModel(hold?: () => Promise<void>) {
  return startModelServer(async (request) => {
    if (lastUserMessage(request).startsWith('Write the subject line'))
      return 'fix(readme): add an exclamation mark to the greeting'
    await hold?.()
    return { content: README_FIX }
  })
}

/** The action again on a hostile run's workspace, issue and plan. */
export function runOn(repo: TestRepo, baseUrl: string, output: string) {
  return runAction({
    workspace: repo.dir,
    inputs: {
      issue: join(repo.root, 'artifact/issue.json'),
      'fix-plan': join(repo.root, 'artifact/plan.json'),
      'base-url': baseUrl,
      'api-key': 'sk-rerun-1234',
      'output-path': join(repo.root, output),
      'max-repairs': '0'
    }
  })
}

/**
 * A git in front of the real one (in `repo.root/bin`, to put first on PATH) that touches `flag`
 * around the branch's push (not the access check's `push --dry-run`, nor a deletion) and then
 * holds the run there until `release()` (or until the run is killed): before the push starts,
 * or once it has finished, with the branch on origin. The run is interrupted at that point
 * however slowly a loaded machine gets there.
 */
export function slowGit(
  repo: TestRepo,
  flag: string,
  when: 'before-push' | 'after-push'
): { release: () => void } {
  const bin = join(repo.root, 'bin')
  mkdirSync(bin)
  const real = process.env
    .PATH!.split(':')
    .map((dir) => join(dir, 'git'))
    .find(existsSync)!
  const go = `${flag}.go`
  const hold = `touch ${flag}; while [ ! -e ${go} ]; do sleep 0.05; done`
  const push = when === 'before-push' ? hold : `${real} "$@"; status=$?; ${hold}; exit $status`
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\ncase " $* " in *" stash "*|*" --dry-run "*|*" :refs/"*) ;; *" push "*) ${push} ;; esac\nexec ${real} "$@"\n`
  )
  chmodSync(join(bin, 'git'), 0o755)
  return { release: () => writeFileSync(go, '') }
}
