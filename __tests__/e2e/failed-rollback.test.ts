/**
 * A rollback that fails (the disk fills up while the run works) keeps the journal, says what is
 * left and how to finish (`patchsmith recover`), and the next run, with space freed, finishes it.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runActionInProcess } from '../support/in-process.js'
import { startModelServer } from '../support/model-server.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { CAN_MOUNT, smallDiskCheckout } from '../support/small-disk.js'

const cleanups = cleanupAfterEach()
const root = CAN_MOUNT
if (!root) console.log('failed-rollback.test.ts: skipped, mounting a tmpfs needs root')

const PLAN = {
  branch_name: 'fix/9-note',
  plan_steps: ['Write the note'],
  file_changes: [{ path: 'note.txt', operation: 'MODIFY', description: 'a longer note' }],
  validation_commands: []
}

describe('a rollback on a full disk', () => {
  it.skipIf(!root)(
    'keeps the journal, names `patchsmith recover`, and the next run puts everything back',
    async () => {
      const { dir, origin, git } = smallDiskCheckout(cleanups, {
        'note.txt': 'short\n',
        'mine.txt': 'theirs\n',
        // Ignored build output the run keeps (validation-keep below): the disk stays full.
        '.gitignore': 'filler.bin\n'
      })
      // The user's own uncommitted work: stashed by the run, to be put back.
      writeFileSync(join(dir, 'mine.txt'), 'my own edit\n')
      const server = await startModelServer((request) =>
        JSON.stringify(request).includes('Write the subject line')
          ? 'fix(note): write a longer note for the readers'
          : '--- a/note.txt\n+++ b/note.txt\n@@ -1 +1 @@\n-short\n+a longer note\n'
      )
      cleanups.push(() => server.close())
      const inputs = mkdtempSync(join(tmpdir(), 'patchsmith-rollback-inputs-'))
      cleanups.push(() => rmSync(inputs, { recursive: true, force: true }))
      mkdirSync(inputs, { recursive: true })
      writeFileSync(join(inputs, 'issue.json'), JSON.stringify({ number: 9, title: 'Note' }))
      writeFileSync(join(inputs, 'plan.json'), JSON.stringify(PLAN))
      const run = (output: string, validation: string) =>
        runActionInProcess({
          workspace: dir,
          inputs: {
            issue: join(inputs, 'issue.json'),
            'fix-plan': join(inputs, 'plan.json'),
            'base-url': server.url,
            'api-key': 'sk-test-rollback',
            'comment-on-failure': 'false',
            'max-repairs': '0',
            'output-path': join(inputs, output),
            'log-dir': join(inputs, `logs-${output}`),
            'validation-commands': validation,
            settings: 'validation-keep: filler.bin'
          }
        })
      // Validation fills the disk once the run has stashed, branched and applied: every write
      // after it (the journal, the commit, each rollback step) fails.
      const filler = join(dir, 'filler.bin')
      const first = await run('first.json', `dd if=/dev/zero of=${filler} bs=4k 2>/dev/null; true`)
      expect(first.exitCode).not.toBe(0)
      expect(existsSync(join(dir, '.git/patchsmith/journal.json')), first.stdout).toBe(true)
      expect(first.stdout).toContain('is kept')
      expect(first.stdout).toContain(`patchsmith recover --repo ${dir}`)
      rmSync(filler)
      const second = await run('second.json', 'true')
      expect(second.stdout).toMatch(/ended without cleaning up; restored the repository first/)
      expect(second.exitCode, second.stdout).toBe(0)
      expect(second.stdout).toMatch(/checked out main; .*put the uncommitted changes back/)
      expect(
        execFileSync('git', ['-C', origin, 'branch', '--list', 'fix/9-note']).toString()
      ).toContain('fix/9-note')
      expect(git('stash', 'list')).toBe('')
      expect(readFileSync(join(dir, 'mine.txt'), 'utf8')).toBe('my own edit\n')
      expect(existsSync(join(dir, '.git/patchsmith/journal.json'))).toBe(false)
    }
  )
})
