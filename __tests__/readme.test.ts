import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { README_PATH, readmeWithActionTables } from '../scripts/action-docs.js'

describe('README.md', () => {
  it('documents every input and output of action.yml as it is (run `npm run docs` after changing it)', async () => {
    expect(readFileSync(README_PATH, 'utf8')).toBe(await readmeWithActionTables())
  })

  it('keeps the two commands at its top: the demo and the tests', () => {
    const top = readFileSync(README_PATH, 'utf8').split('\n').slice(0, 40).join('\n')
    expect(top).toContain('npm ci && npm run demo')
    expect(top).toContain('npm test')
  })
})
