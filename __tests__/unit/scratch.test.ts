import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scratchFolder } from '../../src/run/scratch.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()
const uid = process.getuid!()

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'scratch-root-'))
  cleanups.push(() => rmSync(root, { recursive: true, force: true }))
  return root
}

describe('where a run keeps its result and logs', () => {
  it('is the job’s RUNNER_TEMP under Actions', () => {
    expect(scratchFolder({ RUNNER_TEMP: '/runner/temp' })).toBe('/runner/temp/patchsmith')
  })

  it('is a folder of this user’s, mode 0700, the same for every run (resume finds it)', () => {
    const root = tempRoot()
    const first = scratchFolder({}, { tempRoot: root })
    expect(first).toBe(join(root, `patchsmith-${uid}`))
    expect(statSync(first).mode & 0o777).toBe(0o700)
    expect(scratchFolder({}, { tempRoot: root })).toBe(first)
  })

  it.skipIf(uid !== 0)(
    'is a fresh private folder when another user made that folder first, never theirs',
    () => {
      const root = tempRoot()
      const theirs = join(root, `patchsmith-${uid}`)
      mkdirSync(theirs, { mode: 0o777 })
      chownSync(theirs, 65534, 65534)
      const folder = scratchFolder({}, { tempRoot: root })
      expect(folder).not.toBe(theirs)
      expect(statSync(folder).uid).toBe(uid)
      expect(statSync(folder).mode & 0o777).toBe(0o700)
    }
  )

  it('is a fresh private folder when this user’s folder is open to others', () => {
    const root = tempRoot()
    mkdirSync(join(root, `patchsmith-${uid}`), { mode: 0o777 })
    const folder = scratchFolder({}, { tempRoot: root })
    expect(folder).not.toBe(join(root, `patchsmith-${uid}`))
    expect(statSync(folder).mode & 0o777).toBe(0o700)
  })

  it('is a folder of its own for each repository, named by its folder and real path', () => {
    const root = tempRoot()
    const first = join(root, 'work', 'click')
    const second = join(root, 'other', 'click')
    mkdirSync(first, { recursive: true })
    mkdirSync(second, { recursive: true })
    const ofFirst = scratchFolder({}, { tempRoot: root, repoDir: first })
    const ofSecond = scratchFolder({}, { tempRoot: root, repoDir: second })
    expect(ofFirst).toMatch(new RegExp(`^${root}/patchsmith-${uid}/click-[0-9a-f]{8}$`))
    expect(ofSecond).toMatch(new RegExp(`^${root}/patchsmith-${uid}/click-[0-9a-f]{8}$`))
    expect(ofSecond).not.toBe(ofFirst)
    expect(statSync(ofFirst).mode & 0o777).toBe(0o700)
    // The same repository, however it is reached, finds the same folder (resume: true).
    symlinkSync(first, join(root, 'link'))
    expect(scratchFolder({}, { tempRoot: root, repoDir: join(root, 'link') })).toBe(ofFirst)
    expect(scratchFolder({}, { tempRoot: root, repoDir: `${first}/` })).toBe(ofFirst)
  })

  it('is still RUNNER_TEMP/patchsmith under Actions, whatever the repository (one job, one run)', () => {
    expect(scratchFolder({ RUNNER_TEMP: '/runner/temp' }, { repoDir: '/work/click' })).toBe(
      '/runner/temp/patchsmith'
    )
  })
})
