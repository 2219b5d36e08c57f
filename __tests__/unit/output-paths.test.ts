/**
 * What an output path may be (src/report/output-file.ts) and what the jail makes of one under
 * /dev: the e2e side, through the command line, is e2e/output-special-files.test.ts.
 */
import { execFileSync } from 'node:child_process'
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { gitDirs } from '../../src/git/index.js'
import { checkOutputPath, writeOutputFile } from '../../src/report/index.js'
import { jailLayout, Sandbox, type BackendName } from '../../src/sandbox/index.js'
import { jailedCommand } from '../support/jailed-command.js'
import { createRepo } from '../support/repo.js'
import { skipWithout } from '../support/sandbox-needs.js'

const made: Array<() => void> = []
afterEach(() => {
  for (const undo of made.splice(0)) undo()
})

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'output-paths-'))
  made.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

it('refuses a folder at the output path, naming the setting, and leaves it', () => {
  const folder = join(scratch(), 'result.json')
  mkdirSync(folder)
  expect(() => writeOutputFile(folder, '{}', 'output-path')).toThrow(
    expect.objectContaining({
      code: 'INVALID_INPUT',
      details: { field: 'output-path', path: folder, rule: 'not-a-file' }
    })
  )
  expect(lstatSync(folder).isDirectory()).toBe(true)
})

it.skipIf(process.getuid?.() !== 0)('refuses a block device and leaves it', () => {
  const device = join(scratch(), 'disk')
  execFileSync('mknod', [device, 'b', '7', '200'])
  expect(() => writeOutputFile(device, '{}', 'output-path')).toThrow(/is a block device/)
  expect(lstatSync(device).isBlockDevice()).toBe(true)
})

it('takes away a link outside /dev and writes a file in its place', () => {
  const dir = scratch()
  const link = join(dir, 'result.json')
  symlinkSync('/dev/null', link)
  writeOutputFile(link, 'x\n', 'output-path')
  expect(lstatSync(link).isFile()).toBe(true)
  expect(readFileSync(link, 'utf8')).toBe('x\n')
  expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true)
})

const BACKENDS: BackendName[] = ['bubblewrap', 'unshare']

describe.each(BACKENDS)('an output under /dev with %s', (backend) => {
  it.skipIf(skipWithout(backend))(
    'leaves /dev/null to the command (the jail has its own /dev)',
    async () => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'output-dev' })
      made.push(() => repo.cleanup())
      const layout = jailLayout(process.env, repo.dir, gitDirs(repo.dir), ['/dev'])
      expect(layout.hidden).not.toContain('/dev')
      const sandbox = await Sandbox.open(layout, [backend])
      made.push(() => sandbox.dispose())
      const result = await jailedCommand('test -c /dev/null && echo >/dev/null && echo null-ok', {
        cwd: repo.dir,
        sandbox
      })
      expect(result.stdout).toContain('null-ok')
    },
    60_000
  )
})

describe('a folder on the way to an output, replaced by a link during the run', () => {
  it('is taken away and made again: nothing is written where the link leads', () => {
    const dir = scratch()
    const outside = join(dir, 'host-folder')
    mkdirSync(outside)
    mkdirSync(join(dir, 'out/res'), { recursive: true })
    const path = join(dir, 'out/res/result.json')
    checkOutputPath(path, 'output-path')
    // What validation does in the work tree: `rm -rf out && ln -sfn <host folder> out`.
    rmSync(join(dir, 'out'), { recursive: true })
    symlinkSync(outside, join(dir, 'out'))
    writeOutputFile(path, '{"ok":1}\n', 'output-path')
    expect(readdirSync(outside)).toEqual([])
    expect(lstatSync(join(dir, 'out')).isDirectory()).toBe(true)
    expect(readFileSync(path, 'utf8')).toBe('{"ok":1}\n')
  })

  it('follows a link that was there before the run, to where it led then', () => {
    const dir = scratch()
    const real = join(dir, 'real-out')
    mkdirSync(real)
    symlinkSync(real, join(dir, 'out'))
    const path = join(dir, 'out/result.json')
    checkOutputPath(path, 'output-path')
    const elsewhere = join(dir, 'elsewhere')
    mkdirSync(elsewhere)
    rmSync(join(dir, 'out'))
    symlinkSync(elsewhere, join(dir, 'out'))
    writeOutputFile(path, 'x\n', 'output-path')
    expect(readFileSync(join(real, 'result.json'), 'utf8')).toBe('x\n')
    expect(readdirSync(elsewhere)).toEqual([])
  })

  it('refuses a file left where a folder was, naming the setting, and writes nothing', () => {
    const dir = scratch()
    mkdirSync(join(dir, 'out'))
    const path = join(dir, 'out/result.json')
    checkOutputPath(path, 'pull-request-body')
    rmSync(join(dir, 'out'), { recursive: true })
    writeFileSync(join(dir, 'out'), 'planted\n')
    expect(() => writeOutputFile(path, 'x\n', 'pull-request-body')).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        details: expect.objectContaining({ field: 'pull-request-body', rule: 'not-a-file' })
      })
    )
    expect(readFileSync(join(dir, 'out'), 'utf8')).toBe('planted\n')
  })
})
