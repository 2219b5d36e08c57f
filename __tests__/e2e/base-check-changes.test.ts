/**
 * A validation command that changes a planned file (here its mode) changes it on the base too,
 * where the proof runs it: the change no longer applies where it did. The run refuses with the
 * rule that names it, not INTERNAL_ERROR, and commits nothing (attack round of issue 36, A2).
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { FRUIT_BRANCH, fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

it.each(['true', 'false'])(
  'a command that chmods a planned file is refused as unexpected-changes at the base check (validation-overlay: %s)',
  async (overlay) => {
    const repo = fruitRepo()
    cleanups.push(() => repo.cleanup())
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      'validation-commands': 'chmod 755 fruit.txt; sh check.sh',
      sandbox: 'required',
      settings: `validation-overlay: ${overlay}`
    })
    expect(run.result.error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'unexpected-changes', stage: 'base-check' }
    })
    expect(run.result.error?.message).toContain('chmod 755 fruit.txt')
    expect(repo.git('branch', '--list', FRUIT_BRANCH)).toBe('')
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(statSync(join(repo.dir, 'fruit.txt')).mode & 0o111).toBe(0)
  }
)
