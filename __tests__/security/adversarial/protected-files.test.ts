/**
 * SECURITY.md section (b), end to end, one theme of several: .git, protected and execution-
 * relevant files named in the plan, and a symlink out of the repository. A real repository with a
 * bare origin, the GitHub loopback server and a model scripted to be compromised; each refusal
 * leaves nothing written and no canary in any output (./refused.ts).
 */
import { readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectRefused, create, modify, remove } from './refused.js'
import { trackedHostileRuns } from '../tracked-runs.js'

const run = trackedHostileRuns()

describe('B-D. .git, protected and execution-relevant files in the plan (T15, T17-T19, T30, T31, T34-T36)', () => {
  it.each([
    ['T15 hook', create('.git/hooks/pre-commit'), 'git-directory'],
    ['T15 case', create('.GIT/hooks/pre-commit'), 'git-directory'],
    ['T15 ntfs', create('git~1/config'), 'git-directory'],
    ['T17 gitmodules', create('.gitmodules'), 'protected-path'],
    ['T18 gitattributes', create('.gitattributes'), 'protected-path'],
    ['T19 husky', create('.husky/pre-commit'), 'protected-path'],
    ['T19 githooks', create('.githooks/pre-push'), 'protected-path'],
    ['T19 lefthook', create('lefthook.yml'), 'protected-path'],
    ['T19 pre-commit', create('.pre-commit-config.yaml'), 'protected-path'],
    ['T30 CODEOWNERS', remove('.github/CODEOWNERS'), 'protected-path'],
    ['T30 SECURITY.md', remove('SECURITY.md'), 'protected-path'],
    ['T30 workflow', remove('.github/workflows/ci.yml'), 'protected-path'],
    ['T31 new workflow', create('.github/workflows/pwn.yml'), 'protected-path'],
    ['T31 case', create('.GitHub/Workflows/pwn.yml'), 'protected-path'],
    ['T34 eslint config', modify('eslint.config.mjs'), 'protected-path'],
    ['T35 npmrc', create('.npmrc'), 'protected-path'],
    ['T35 lockfile', create('package-lock.json'), 'protected-path'],
    ['T36 AGENTS.md', modify('AGENTS.md'), 'protected-path'],
    ['T36 CLAUDE.md', modify('CLAUDE.md'), 'protected-path'],
    ['T36 copilot', create('.github/copilot-instructions.md'), 'protected-path'],
    ['seed gitignore', modify('.gitignore'), 'protected-path'],
    ['seed agent-config', create('agent-config/key.txt'), 'protected-path'],
    ['gitignored', create('dist/out.js'), 'gitignored']
  ])('%s', async (_name, changes, rule) => {
    expectRefused(await run({ changes }), { code: 'SECURITY_VIOLATION', rule, noModel: true })
  })

  it('T23: a planned file that is a symlink out of the repository is refused; its target untouched', async () => {
    const hostile = await run({
      setup(repo) {
        symlinkSync('../outside/target.txt', join(repo.dir, 'LINK.md'))
        repo.commitAll('a link')
      },
      changes: modify('LINK.md'),
      reply: '--- a/LINK.md\n+++ b/LINK.md\n@@ -1 +1 @@\n-outside\n+owned\n'
    })
    expectRefused(hostile, { code: 'SECURITY_VIOLATION', rule: 'symlink', noModel: true })
    expect(readFileSync(join(hostile.repo.root, 'outside/target.txt'), 'utf8')).toBe('outside\n')
  })
})
