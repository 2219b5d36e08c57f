import { describe, expect, it } from 'vitest'
import { layoutProblems, REPO_ROOT, sourceFiles } from '../support/layout.js'

/** A small tree of src/ files, each `lines` long beside its imports. */
function tree(files: Record<string, string>, filler = 0): Map<string, string> {
  const padded = new Map<string, string>()
  for (const [path, text] of Object.entries(files))
    padded.set(path, `${text}\n${'const x = 1\n'.repeat(filler)}`)
  return padded
}

// Enough other folders that none of the small ones passes 15 % of the lines.
const OTHERS = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [`src/other${i}/index.ts`, ''])
)

describe('the source layout', () => {
  it('holds for src/: arrows down only, no circle, faces, short files, no crowded folder', () => {
    expect(layoutProblems(sourceFiles(REPO_ROOT))).toEqual([])
  })

  it('names an import that runs back up the floors (git -> change)', () => {
    const problems = layoutProblems(
      tree({
        ...OTHERS,
        'src/git/git.ts': "import { ChangeBranch } from '../change/index.js'",
        'src/change/index.ts': ''
      })
    )
    expect(problems).toContain('upward import: src/git/git.ts -> src/change/index.ts')
  })

  it('names the run folder importing the attempt floor (run -> agent), and a leaf importing src/', () => {
    const problems = layoutProblems(
      tree({
        ...OTHERS,
        'src/run/phase-clock.ts': "import { attemptChange } from '../agent/index.js'",
        'src/run/index.ts': "export { PhaseClock } from './phase-clock.js'",
        'src/contract/schemas.ts': "import type { RunConfig } from '../config.js'",
        'src/agent/index.ts': '',
        'src/config.ts': ''
      })
    )
    expect(problems).toEqual([
      'upward import: src/run/phase-clock.ts -> src/agent/index.ts',
      'a leaf (run) imports another part of src/: src/run/phase-clock.ts -> src/agent/index.ts',
      'a leaf (contract) imports another part of src/: src/contract/schemas.ts -> src/config.ts'
    ])
  })

  it("names an import past the run folder's face, and takes one through it", () => {
    const problems = layoutProblems(
      tree({
        ...OTHERS,
        'src/engine/session.ts': "import { PhaseClock } from '../run/phase-clock.js'",
        'src/agent/finish.ts': "import type { Logger } from '../run/index.js'",
        'src/run/index.ts': '',
        'src/run/phase-clock.ts': ''
      })
    )
    expect(problems).toEqual([
      "past run's face (index.ts): src/engine/session.ts -> src/run/phase-clock.ts"
    ])
  })

  it('names a circle between folders, even where neither is on the floors', () => {
    const problems = layoutProblems(
      tree({
        ...OTHERS,
        'src/report/a.ts': "import { b } from '../github/b.js'",
        'src/github/b.ts': "export { a } from '../report/a.js'"
      })
    )
    expect(problems).toContain('import circle between folders: github, report')
  })

  it('names a mode that reaches into git, and an import past a face', () => {
    const problems = layoutProblems(
      tree({
        ...OTHERS,
        'src/modes/follow-up/index.ts': "import { Git } from '../../git/index.js'",
        'src/agent/finish.ts': "import { publish } from '../change/publish.js'",
        'src/git/index.ts': '',
        'src/change/publish.ts': ''
      })
    )
    expect(problems).toEqual([
      'a mode reaches into git: src/modes/follow-up/index.ts -> src/git/index.ts',
      "past change's face (index.ts): src/agent/finish.ts -> src/change/publish.ts"
    ])
  })

  it('names a file over 300 lines in git/, change/ or run-state/ (elsewhere: not this rule)', () => {
    const problems = layoutProblems(
      tree({ ...OTHERS, 'src/run-state/run-lock.ts': '', 'src/edits/parse.ts': '' }, 300)
    )
    expect(problems.filter((problem) => problem.includes('lines, over'))).toEqual([
      'src/run-state/run-lock.ts has 301 lines, over 300'
    ])
  })

  it('names a folder over 15 % of the lines of src/', () => {
    const problems = layoutProblems(
      tree({ ...OTHERS, 'src/git/git.ts': 'x\n'.repeat(40), 'src/main.ts': 'x\n'.repeat(200) })
    )
    expect(problems).toEqual(['src/git/ holds 41 of 252 lines (16.3 %), over 15 %'])
  })
})
