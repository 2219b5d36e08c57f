import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AttemptLog } from '../../src/report/index.js'

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tree(): { work: string; logs: string; outside: string } {
  const root = mkdtempSync(join(tmpdir(), 'attempt-log-swap-'))
  made.push(root)
  const work = join(root, 'work')
  const outside = join(root, 'runner-file')
  writeFileSync(outside, 'the runner file\n')
  return { work, logs: join(work, 'agent-config', 'logs'), outside }
}

describe('AttemptLog in a folder validation can reach', () => {
  it('writes nothing through a folder swapped in by renaming its parent', () => {
    const { work, logs, outside } = tree()
    const log = new AttemptLog(logs, (text) => text)
    log.replies(1, [{ path: 'a.ts', text: 'reply' }])
    // What a build in the jail can do: the cover sits on logs/, its parent can still be renamed.
    renameSync(join(work, 'agent-config'), join(work, 'moved'))
    mkdirSync(logs, { recursive: true })
    symlinkSync(outside, join(logs, '01-build.txt'))
    expect(() =>
      log.build(1, [{ command: 'x', exit_code: 0, duration_ms: 1, stdout: 'evil', stderr: '' }])
    ).toThrow(/unexpected-changes/)
    expect(readFileSync(outside, 'utf8')).toBe('the runner file\n')
  })

  it('never follows a link planted at a log file name', () => {
    const { logs, outside } = tree()
    const log = new AttemptLog(logs, (text) => text)
    symlinkSync(outside, join(logs, '01-build.txt'))
    expect(() => log.build(1, [])).toThrow()
    expect(readFileSync(outside, 'utf8')).toBe('the runner file\n')
  })

  it('writes its files where it made its folder', () => {
    const { logs } = tree()
    const log = new AttemptLog(logs, (text) => text.replace('key', '***'))
    log.build(2, [], 'a key')
    expect(readFileSync(join(logs, '02-build.txt'), 'utf8')).toBe('a ***')
    expect(existsSync(join(logs, '01-build.txt'))).toBe(false)
  })
})
