/**
 * The identity file's folder (identity.ts) is named by its process, so a run killed before its
 * exit handler (a cancelled job's step) leaves nothing for good: the next run removes the folders
 * of processes that are gone, and nothing else. Its own process: the folder is made once.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { identityFallbackConfig } from '../../src/git/identity.js'
import { processStartTime } from '../../src/sandbox/index.js'

const temp = mkdtempSync(join(tmpdir(), 'patchsmith-identity-'))
const savedTmp = process.env.TMPDIR
afterAll(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = savedTmp
  rmSync(temp, { recursive: true, force: true })
})

describe.skipIf(process.platform !== 'linux')('the identity folders of ended runs', () => {
  it("removes a gone process's folder, keeps a live one's, a file and other names", () => {
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
    const endedPid = String(ended.stdout)
    const own = `${process.pid}-${processStartTime(process.pid)}`
    const names = {
      ended: `patchsmith-git-${endedPid}-1-aaaaaa`,
      // The pid of this process, but another start time: an earlier process that had its pid.
      reused: `patchsmith-git-${process.pid}-1-bbbbbb`,
      live: `patchsmith-git-${own}-cccccc`,
      file: `patchsmith-git-${endedPid}-1-dddddd`,
      older: 'patchsmith-git-eeeeee'
    }
    for (const [kind, name] of Object.entries(names)) {
      if (kind === 'file') writeFileSync(join(temp, name), 'x')
      else {
        mkdirSync(join(temp, name))
        writeFileSync(join(temp, name, 'global-0.gitconfig'), '[user]\n')
      }
    }
    process.env.TMPDIR = temp
    const file = identityFallbackConfig(process.env)
    const left = readdirSync(temp)
    expect(left).not.toContain(names.ended)
    expect(left).not.toContain(names.reused)
    expect(left).toEqual(expect.arrayContaining([names.live, names.file, names.older]))
    // This run's own folder, named by this process, holds the file.
    expect(dirname(file)).toBe(join(temp, basename(dirname(file))))
    expect(basename(dirname(file))).toMatch(new RegExp(`^patchsmith-git-${own}-`))
    expect(existsSync(file)).toBe(true)
  })
})
