/**
 * The machine's faults under git get the code docs/errors.md names: a disk that fills up while
 * committing and a read-only checkout are ENVIRONMENT_ERROR, an index.lock another process
 * holds is GIT_CONFLICT git-lock-held naming the file, and an origin that cannot be reached
 * when the run looks whether its base moved is PERMISSION_DENIED remote-unreachable.
 */
import { renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { toAgentError } from '../../src/contract/index.js'
import { Git } from '../../src/git/index.js'
import { runActionInProcess } from '../support/in-process.js'
import { startModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { CAN_MOUNT, smallDiskCheckout } from '../support/small-disk.js'
import { writeInputs } from './scenario.js'

const cleanups = cleanupAfterEach()
const DIFF = '--- a/note.txt\n+++ b/note.txt\n@@ -1 +1 @@\n-short\n+a longer note\n'
const PLAN = {
  branch_name: 'fix/9-note',
  plan_steps: ['Write the note'],
  file_changes: [{ path: 'note.txt', operation: 'MODIFY', description: 'a longer note' }],
  validation_commands: []
}

async function runOn(
  dir: string,
  inputsIn: TestRepo | string,
  onMessage?: () => void,
  extra: Record<string, string> = {}
) {
  const model = await startModelServer((request) => {
    if (/Write a unified diff for/.test(JSON.stringify(request.body))) return DIFF
    onMessage?.()
    return 'docs(note): write a longer note'
  })
  cleanups.push(() => model.close())
  const files =
    typeof inputsIn === 'string'
      ? { issue: join(inputsIn, 'issue.json'), plan: join(inputsIn, 'plan.json') }
      : (() => {
          const written = writeInputs(inputsIn, {
            'issue.json': { number: 9, title: 'Note', body: '' },
            'plan.json': PLAN
          })
          return { issue: written['issue.json']!, plan: written['plan.json']! }
        })()
  return runActionInProcess({
    workspace: dir,
    inputs: {
      issue: files.issue,
      'fix-plan': files.plan,
      'base-url': model.url,
      'api-key': 'sk-test-faults',
      'comment-on-failure': 'false',
      ...extra
    }
  })
}

function repoWithNote(prefix: string): TestRepo {
  const repo = createRepo({ files: { 'note.txt': 'short\n', 'other.txt': 'mine\n' }, prefix })
  cleanups.push(() => repo.cleanup())
  return repo
}

describe("the machine's faults under git", () => {
  it.skipIf(!CAN_MOUNT)(
    'a disk that fills up while committing is ENVIRONMENT_ERROR, not GIT_CONFLICT',
    async () => {
      const disk = smallDiskCheckout(cleanups, { 'note.txt': 'short\n' })
      writeFileSync(join(disk.dir, 'note.txt'), 'a longer note\n')
      disk.git('add', 'note.txt')
      disk.fill()
      const git = await Git.open(disk.dir)
      const error = await git.exec(['commit', '--quiet', '-m', 'note']).catch((e: unknown) => e)
      disk.free()
      expect(toAgentError(error)).toMatchObject({
        code: 'ENVIRONMENT_ERROR',
        details: { errno: 'ENOSPC', command: 'git commit' },
        recoverable: true
      })
      expect(toAgentError(error).message).toContain('the disk is full')
    }
  )

  it.skipIf(!CAN_MOUNT)(
    'a read-only checkout is ENVIRONMENT_ERROR (EROFS), not INTERNAL_ERROR ENOENT',
    async () => {
      const disk = smallDiskCheckout(cleanups, { 'note.txt': 'short\n' })
      const inputs = repoWithNote('faults-ro-inputs')
      writeInputs(inputs, {
        'issue.json': { number: 9, title: 'Note', body: '' },
        'plan.json': PLAN
      })
      disk.readOnly()
      cleanups.push(() => disk.writable())
      // No sandbox: its probe fails first on a read-only checkout.
      const run = await runOn(disk.dir, inputs.root, undefined, { sandbox: 'off' })
      expect(run.outputs['error-code'], run.stdout).toBe('ENVIRONMENT_ERROR')
      expect(run.stdout).toContain('the file system is read-only')
      expect(run.stdout).not.toContain('ENOENT')
    }
  )

  it('an index.lock another process holds, met by `git stash push`, is git-lock-held naming it', async () => {
    const repo = repoWithNote('faults-lock')
    repo.write('other.txt', 'my own edit\n')
    const lock = join(repo.dir, '.git', 'index.lock')
    writeFileSync(lock, '')
    const run = await runOn(repo.dir, repo)
    expect(run.outputs['error-code'], run.stdout).toBe('GIT_CONFLICT')
    expect(run.stdout).toContain(`Another git process holds ${lock}`)
    expect(run.stdout).toContain('File exists')
    expect(repo.read('other.txt')).toBe('my own edit\n')
  })

  it('origin unreachable when the run looks whether its base moved is PERMISSION_DENIED remote-unreachable', async () => {
    const repo = repoWithNote('faults-moved-base')
    // Gone after the preflight read it: when the change is committed, before the push.
    const run = await runOn(repo.dir, repo, () => renameSync(repo.origin, `${repo.origin}.gone`))
    expect(run.outputs['error-code'], run.stdout).toBe('PERMISSION_DENIED')
    expect(run.stdout).toContain('Cannot reach the remote origin')
    expect(run.stdout).not.toContain('git-command-failed')
  })
})
