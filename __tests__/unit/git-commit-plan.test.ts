import { describe, expect, it } from 'vitest'
import { commitGroups, splitPatch } from '../../src/git/index.js'

const steps = (n: number, extra: Record<number, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => extra[i] ?? `Step ${i + 1}`)

describe('commitGroups', () => {
  it('is one commit for ten steps or fewer, whatever the steps say', () => {
    expect(
      commitGroups(steps(10, { 0: { files: ['a'] }, 1: { files: ['b'] } }), ['a', 'b'])
    ).toEqual([{ paths: ['a', 'b'] }])
  })

  it('is one commit per step that changes files, in plan order, above ten steps', () => {
    const plan = steps(12, {
      1: { description: 'Second', file_changes: [{ path: 'b' }] },
      4: { title: 'Fifth', paths: ['a', 'c'] },
      7: { files: ['b'] } // claimed already by step 2
    })
    expect(commitGroups(plan, ['a', 'b', 'c'])).toEqual([
      { paths: ['b'], step: { number: 1, total: 2, description: 'Second' } },
      { paths: ['a', 'c'], step: { number: 2, total: 2, description: 'Fifth' } }
    ])
  })

  it('stays one commit when a changed file belongs to no step, or all to one', () => {
    expect(commitGroups(steps(12, { 0: { files: ['a'] } }), ['a', 'b'])).toEqual([
      { paths: ['a', 'b'] }
    ])
    expect(commitGroups(steps(12, { 3: { files: ['a', 'b'] } }), ['a', 'b'])).toEqual([
      { paths: ['a', 'b'] }
    ])
  })
})

describe('splitPatch', () => {
  it('splits a git-style diff by file, paths with spaces included', () => {
    const one =
      'diff --git a/x y.txt b/x y.txt\n--- a/x y.txt\n+++ b/x y.txt\n@@ -1 +1 @@\n-a\n+b\n'
    const two =
      'diff --git a/z b/z\nnew file mode 100644\n--- /dev/null\n+++ b/z\n@@ -0,0 +1 @@\n+z\n'
    const parts = splitPatch(one + two)
    expect([...parts.keys()]).toEqual(['x y.txt', 'z'])
    expect(parts.get('x y.txt')).toBe(one)
    expect(parts.get('z')).toBe(two)
  })
})
