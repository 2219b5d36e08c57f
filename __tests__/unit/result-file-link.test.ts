import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { writeResultFile } from '../../src/report/index.js'

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

it('writes the result file in place of a link validation left at its name', () => {
  const root = mkdtempSync(join(tmpdir(), 'result-link-'))
  made.push(root)
  const outside = join(root, 'runner-file')
  writeFileSync(outside, 'the runner file\n')
  const result = join(root, 'work', 'result.json')
  writeResultFile(result, { first: true })
  rmSync(result)
  symlinkSync(outside, result)
  writeResultFile(result, { success: false })
  expect(readFileSync(outside, 'utf8')).toBe('the runner file\n')
  expect(lstatSync(result).isFile()).toBe(true)
  expect(JSON.parse(readFileSync(result, 'utf8'))).toEqual({ success: false })
})
