/**
 * SECURITY.md section (b), end to end, one theme of several: the repository's integrity after
 * validation has run untrusted code. A real repository with a bare origin, the GitHub loopback
 * server and a model scripted to be compromised; each refusal leaves nothing written and no canary
 * in any output (./refused.ts).
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { leakedCanaries } from '../hostile-run.js'
import { expectRefused, create } from './refused.js'
import { trackedHostileRuns } from '../tracked-runs.js'
import type { TestRepo } from '../../support/repo.js'

const run = trackedHostileRuns()

describe('I. integrity after running untrusted code (T9, T19, T34, T76)', () => {
  it('T9: validation that sets core.fsmonitor and plants a hook stops the run before any push; git is restored', async () => {
    const hostile = await run({
      setup(repo) {
        writeFileSync(
          join(repo.root, 'tamper.sh'),
          `#!/bin/sh\ngit config core.fsmonitor "touch ${repo.root}/pwned #"\nprintf '#!/bin/sh\\ntouch ${repo.root}/pwned-hook\\n' > .git/hooks/pre-commit\nchmod +x .git/hooks/pre-commit\n`
        )
      },
      // The second layer, with the sandbox off (it makes .git read-only): sandbox.test.ts.
      inputs: { 'validation-commands': 'sh ../tamper.sh', sandbox: 'off' }
    })
    expectRefused(hostile, { code: 'SECURITY_VIOLATION', rule: 'repo-tampered' })
    expect(existsSync(join(hostile.repo.root, 'pwned'))).toBe(false)
    expect(existsSync(join(hostile.repo.root, 'pwned-hook'))).toBe(false)
  })

  it('T34, T76: validation that rewrites a workflow is refused as unexpected-changes', async () => {
    const hostile = await run({
      setup(repo) {
        writeFileSync(
          join(repo.root, 'rewrite.sh'),
          '#!/bin/sh\necho "on: push # pwned" > .github/workflows/ci.yml\necho x > scripts-new.sh\n'
        )
      },
      inputs: { 'validation-commands': 'sh ../rewrite.sh', sandbox: 'off' }
    })
    expect(hostile.result.error?.code).toBe('SECURITY_VIOLATION')
    expect(hostile.result.error?.details?.rule).toBe('unexpected-changes')
    expect(hostile.repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
    expect(leakedCanaries(hostile)).toEqual([])
  })

  it('T76: validation that stages another file cannot get it committed', async () => {
    const hostile = await run({
      inputs: {
        'validation-commands': 'echo evil > extra.txt && git add extra.txt',
        sandbox: 'off'
      }
    })
    expect(hostile.result.error?.code).toBe('SECURITY_VIOLATION')
    expect(hostile.result.error?.details?.rule).toBe('unexpected-changes')
    expect(hostile.repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
  })

  it('validation that puts its own `git` first on PATH never gets it run for the commit or push', async () => {
    const marker = (repo: TestRepo) => join(repo.root, 'fake-git-ran')
    const bin = (repo: TestRepo) => join(repo.root, 'bin')
    let fakeGit = ''
    const hostile = await run({
      setup(repo) {
        mkdirSync(bin(repo))
        fakeGit = join(bin(repo), 'git')
      },
      env: (repo) => ({
        PATH: `${bin(repo)}:${process.env.PATH ?? ''}`,
        MARKER: marker(repo),
        FAKE_GIT: join(bin(repo), 'git')
      }),
      inputs: {
        'validation-commands':
          'printf \'#!/bin/sh\\ntouch %s\\nexit 1\\n\' "$MARKER" > "$FAKE_GIT" && chmod +x "$FAKE_GIT"',
        // Inside the sandbox that folder is read-only; this checks git's pinned path.
        sandbox: 'off',
        'validation-env': 'MARKER\nFAKE_GIT'
      }
    })
    expect(hostile.result.success, JSON.stringify(hostile.result.error)).toBe(true)
    expect(existsSync(fakeGit)).toBe(true)
    expect(existsSync(marker(hostile.repo))).toBe(false)
    expect(hostile.repo.gitOrigin('log', '-1', '--format=%s', 'fix/5-hostile')).toMatch(/^fix\(/)
  })

  it('T19: with a hook manager allowed, hooks still never run on the agent commit', async () => {
    const hostile = await run({
      setup(repo) {
        const marker = join(repo.root, 'hook-ran')
        writeFileSync(join(repo.dir, '.git/hooks/pre-commit'), `#!/bin/sh\ntouch ${marker}\n`)
        chmodSync(join(repo.dir, '.git/hooks/pre-commit'), 0o755)
        writeFileSync(join(repo.dir, '.git/hooks/commit-msg'), `#!/bin/sh\ntouch ${marker}\n`)
        chmodSync(join(repo.dir, '.git/hooks/commit-msg'), 0o755)
      },
      changes: create('.husky/pre-commit'),
      reply: `--- /dev/null\n+++ b/.husky/pre-commit\n@@ -0,0 +1 @@\n+npx lint-staged\n`,
      inputs: { 'allow-protected-paths': '.husky/**' }
    })
    expect(hostile.result.success, JSON.stringify(hostile.result.error)).toBe(true)
    expect(existsSync(join(hostile.repo.root, 'hook-ran'))).toBe(false)
    expect(hostile.repo.gitOrigin('show', 'refs/heads/fix/5-hostile:.husky/pre-commit')).toBe(
      'npx lint-staged'
    )
  })
})
