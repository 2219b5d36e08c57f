/**
 * What the adversarial files share (SECURITY.md section (b), split by theme so that vitest runs
 * them side by side): the check that a hostile run was refused with nothing written and no canary
 * in any output, and the plan's file changes.
 */
import { expect } from 'vitest'
import { leakedCanaries, written, type HostileRun } from '../hostile-run.js'

export interface Expected {
  code: string
  rule?: string | readonly string[]
  /** The model was never asked (refused at load or guard). */
  noModel?: boolean
}

export function expectRefused(hostile: HostileRun, expected: Expected): void {
  const { run: action, result, model } = hostile
  expect(result.success, JSON.stringify(result.error)).toBe(false)
  expect(result.error!.code, result.error!.message).toBe(expected.code)
  if (expected.rule !== undefined) {
    const rules = typeof expected.rule === 'string' ? [expected.rule] : expected.rule
    expect(rules, result.error!.message).toContain(result.error!.details?.rule)
  }
  expect(action.exitCode).toBe(1)
  expect(action.outputs['error-code']).toBe(expected.code)
  expect(action.outputs.commits).toBe('[]')
  if (expected.noModel) expect(model.requests).toHaveLength(0)
  expect(written(hostile)).toEqual([])
  expect(leakedCanaries(hostile)).toEqual([])
}

export const create = (path: string) => [{ path, operation: 'CREATE' }]
export const modify = (path: string) => [{ path, operation: 'MODIFY' }]
export const remove = (path: string) => [{ path, operation: 'DELETE' }]
export const HUNK = '@@ -1 +1 @@\n-SECRET=hunter2\n+SECRET=attacker\n'
