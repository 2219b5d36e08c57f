import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SecurityViolationError } from '../../src/contract/index.js'
import { Git, RepoIntegrity } from '../../src/git/index.js'
import {
  assertCommittedAsApproved,
  assertExactChanges,
  assertRepoPaths,
  guardEdits,
  PathPolicy,
  ValidationWatch,
  type GuardedEdit
} from '../../src/policy/index.js'
import { SecretMasker } from '../../src/secrets/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!()
})

const PACKAGE = JSON.stringify(
  {
    name: 'demo',
    version: '1.0.0',
    scripts: { lint: 'eslint .' },
    devDependencies: { eslint: '9' }
  },
  null,
  2
)

function repoWith(files: Record<string, string> = {}): TestRepo {
  const repo = createRepo({
    files: {
      'README.md': '# Demo\n',
      'src/a.js': 'export const a = 1\n',
      'package.json': `${PACKAGE}\n`,
      '.gitignore': 'dist/\n*.log\n',
      ...files
    },
    prefix: 'guard'
  })
  cleanups.push(() => repo.cleanup())
  return repo
}

async function refusal(action: () => Promise<unknown>): Promise<SecurityViolationError> {
  try {
    await action()
  } catch (error) {
    expect(error).toBeInstanceOf(SecurityViolationError)
    return error as SecurityViolationError
  }
  throw new Error('expected a SECURITY_VIOLATION')
}

const modify = (path: string, before: string, after: string): GuardedEdit => ({
  path,
  operation: 'MODIFY',
  before,
  after
})

describe('guardEdits', () => {
  it('refuses an edit to a file the plan does not name (outside-plan), or with another operation', async () => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    const edit = modify('src/a.js', 'export const a = 1\n', 'export const a = 2\n')
    const outside = await refusal(() =>
      guardEdits([edit], new PathPolicy(), repo.dir, git, {
        planned: [{ path: 'README.md', operation: 'MODIFY' }]
      })
    )
    expect(outside.details).toMatchObject({ rule: 'outside-plan', path: 'src/a.js' })
    const operation = await refusal(() =>
      guardEdits([edit], new PathPolicy(), repo.dir, git, {
        planned: [{ path: 'src/a.js', operation: 'DELETE' }]
      })
    )
    expect(operation.details.rule).toBe('outside-plan')
    await guardEdits([edit], new PathPolicy(), repo.dir, git, {
      planned: [{ path: 'src/a.js', operation: 'MODIFY' }]
    })
  })

  it.each([
    [
      'scripts',
      (p: Record<string, unknown>) => ({ ...p, scripts: { lint: 'eslint . && curl x.example' } })
    ],
    [
      'prelint',
      (p: Record<string, unknown>) => ({
        ...p,
        scripts: { prelint: 'node x.js', lint: 'eslint .' }
      })
    ],
    ['dependencies', (p: Record<string, unknown>) => ({ ...p, dependencies: { lodahs: '*' } })],
    ['overrides', (p: Record<string, unknown>) => ({ ...p, overrides: { eslint: 'npm:evil@1' } })]
  ])('refuses a package.json change to %s (T33, T35) unless allowed', async (_name, change) => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    const before = `${PACKAGE}\n`
    const after = `${JSON.stringify(change(JSON.parse(PACKAGE) as Record<string, unknown>), null, 2)}\n`
    const planned = [{ path: 'package.json', operation: 'MODIFY' }]
    const error = await refusal(() =>
      guardEdits([modify('package.json', before, after)], new PathPolicy(), repo.dir, git, {
        planned
      })
    )
    expect(error.details).toMatchObject({ rule: 'protected-path', group: 'package-manifest' })
    const opted = new PathPolicy({ allowProtected: ['package.json'] })
    await guardEdits([modify('package.json', before, after)], opted, repo.dir, git, { planned })
  })

  it('lets package.json change in its other fields', async () => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    const after = `${PACKAGE.replace('1.0.0', '1.0.1')}\n`
    await guardEdits(
      [modify('package.json', `${PACKAGE}\n`, after)],
      new PathPolicy(),
      repo.dir,
      git,
      {
        planned: [{ path: 'package.json', operation: 'MODIFY' }]
      }
    )
    const broken = await refusal(() =>
      guardEdits(
        [modify('package.json', `${PACKAGE}\n`, '{ not json')],
        new PathPolicy(),
        repo.dir,
        git,
        {
          planned: [{ path: 'package.json', operation: 'MODIFY' }]
        }
      )
    )
    expect(broken.details.rule).toBe('protected-path')
  })

  it('refuses a secret or a bidi character in added lines (T52, T24 unicode), naming the line', async () => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    const planned = [{ path: 'src/a.js', operation: 'MODIFY' }]
    const masker = new SecretMasker()
    masker.add('zX9!canary-Q7')
    for (const [added, rule] of [
      ['export const token = "ghs_CANARYcanary0123456789abcdefghijklmn"\n', 'secret-detected'],
      ['export const x = "zX9!canary-Q7"\n', 'secret-detected'],
      ['// \u202e } if (isAdmin) {\n', 'invisible-unicode'],
      ['const s = "\u{E0069}\u{E0067}"\n', 'invisible-unicode']
    ] as const) {
      const error = await refusal(() =>
        guardEdits(
          [modify('src/a.js', 'export const a = 1\n', `export const a = 1\n${added}`)],
          new PathPolicy(),
          repo.dir,
          git,
          {
            planned,
            masker
          }
        )
      )
      expect(error.details).toMatchObject({ rule, line: 2, path: 'src/a.js' })
      expect(error.message).not.toContain('CANARY')
      expect(error.message).not.toContain('canary')
    }
  })

  it('refuses edits over the size caps (T14)', async () => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    const many = Array.from({ length: 51 }, (_, i) => ({
      path: `src/f${i}.js`,
      operation: 'CREATE' as const,
      before: null,
      after: 'x\n'
    }))
    const error = await refusal(() =>
      guardEdits(many, new PathPolicy(), repo.dir, git, { planned: many })
    )
    expect(error.details.rule).toBe('input-too-large')
    const big = [
      { path: 'src/big.js', operation: 'CREATE' as const, before: null, after: 'x'.repeat(600_000) }
    ]
    expect(
      (await refusal(() => guardEdits(big, new PathPolicy(), repo.dir, git, { planned: big })))
        .details.rule
    ).toBe('input-too-large')
  })
})

describe('assertRepoPaths', () => {
  it('refuses a path through a symlink, onto a symlink, or out of the repository (T7, T23)', async () => {
    const repo = repoWith()
    mkdirSync(join(repo.root, 'outside'))
    writeFileSync(join(repo.root, 'outside', 'target.txt'), 'outside\n')
    symlinkSync('../outside', join(repo.dir, 'docs'))
    symlinkSync('../outside/target.txt', join(repo.dir, 'LINK.md'))
    const git = await Git.open(repo.dir)
    for (const path of ['docs/owned.txt', 'LINK.md', 'docs/new/deeper.txt']) {
      const error = await refusal(() =>
        assertRepoPaths([path], new PathPolicy(), repo.dir, git, 'edit')
      )
      expect(error.details.rule, path).toBe('symlink')
    }
    expect(readFileSync(join(repo.root, 'outside', 'target.txt'), 'utf8')).toBe('outside\n')
    const folder = await refusal(() =>
      assertRepoPaths(['src'], new PathPolicy(), repo.dir, git, 'plan')
    )
    expect(folder.details.rule).toBe('not-a-file')
  })

  it('refuses gitignored paths, but not tracked files or new ordinary ones', async () => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    for (const path of ['dist/index.js', 'build.log', 'sub/dist/x.js']) {
      const error = await refusal(() =>
        assertRepoPaths([path], new PathPolicy(), repo.dir, git, 'plan')
      )
      expect(error.details.rule, path).toBe('gitignored')
    }
    await assertRepoPaths(['README.md', 'src/new.js'], new PathPolicy(), repo.dir, git, 'plan')
  })
})

describe('RepoIntegrity (T9)', () => {
  it('notices config, hooks and info changes, and nothing else', async () => {
    const repo = repoWith()
    const snapshot = await RepoIntegrity.snapshot(repo.dir)
    writeFileSync(join(repo.dir, 'README.md'), 'changed\n')
    expect(snapshot.changes()).toEqual([])
    await snapshot.assertUnchanged()
    repo.git('config', 'core.fsmonitor', './x.sh')
    writeFileSync(join(repo.dir, '.git/hooks/pre-commit'), '#!/bin/sh\ntouch /tmp/pwned\n')
    writeFileSync(join(repo.dir, '.git/info/exclude'), 'evil\n')
    const changed = snapshot.changes().map((path) => path.slice(repo.dir.length + 1))
    expect(changed).toEqual(['.git/config', '.git/hooks/pre-commit', '.git/info/exclude'])
    const error = await refusal(() => snapshot.assertUnchanged())
    expect(error.details.rule).toBe('repo-tampered')
    // Restored before the run goes on to roll back with git.
    expect(snapshot.changes()).toEqual([])
    expect(existsSync(join(repo.dir, '.git/hooks/pre-commit'))).toBe(false)
    expect(spawnSync('git', ['config', 'core.fsmonitor'], { cwd: repo.dir }).status).toBe(1)
  })

  it('says when a git folder holds more than it can watch: the entries past the limit are unseen', async () => {
    const repo = repoWith()
    const whole = await RepoIntegrity.snapshot(repo.dir, [], { whole: true })
    expect(whole.complete).toBe(true)
    for (let i = 0; i < 40; i++) repo.git('tag', `t${i}`)
    const capped = await RepoIntegrity.snapshot(repo.dir, [], { whole: true, limit: 30 })
    expect(capped.complete).toBe(false)
  })
})

describe('ValidationWatch and assertExactChanges (T34, T76)', () => {
  async function applied(repo: TestRepo) {
    const git = await Git.open(repo.dir)
    const edit = modify('src/a.js', 'export const a = 1\n', 'export const a = 2\n')
    const patch =
      'diff --git a/src/a.js b/src/a.js\n--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-export const a = 1\n+export const a = 2\n'
    const out = spawnSync('git', ['apply', '--index', '-'], { cwd: repo.dir, input: patch })
    expect(out.status).toBe(0)
    return { git, edit }
  }

  it('accepts exactly the approved change, and refuses anything staged beyond it', async () => {
    const repo = repoWith()
    const { git, edit } = await applied(repo)
    await assertExactChanges(git, [edit], 'apply')
    repo.write('src/b.js', 'extra\n')
    repo.git('add', 'src/b.js')
    const error = await refusal(() => assertExactChanges(git, [edit], 'apply'))
    expect(error.details.rule).toBe('unexpected-changes')
    expect(error.message).toContain('src/b.js')
  })

  it('refuses a mode change or other content staged for an approved path', async () => {
    const repo = repoWith()
    const { git, edit } = await applied(repo)
    chmodSync(join(repo.dir, 'src/a.js'), 0o755)
    repo.git('add', 'src/a.js')
    expect((await refusal(() => assertExactChanges(git, [edit], 'apply'))).message).toContain(
      'mode 100755'
    )
    chmodSync(join(repo.dir, 'src/a.js'), 0o644)
    repo.write('src/a.js', 'export const a = 3\n')
    repo.git('add', 'src/a.js')
    expect((await refusal(() => assertExactChanges(git, [edit], 'apply'))).message).toContain(
      'other content'
    )
  })

  it('refuses validation that tampers with git or writes protected files, not one that writes build output', async () => {
    const repo = repoWith({ '.github/workflows/ci.yml': 'on: push\n' })
    const { git, edit } = await applied(repo)
    const policy = new PathPolicy()
    const ok = await ValidationWatch.start(repo.dir, git, policy)
    repo.write('coverage/out.txt', 'report\n')
    repo.write('dist/bundle.js', 'ignored\n')
    repo.write('scripts/new.sh', 'echo new\n')
    await ok.assertClean([edit])

    const workflow = await ValidationWatch.start(repo.dir, git, policy)
    repo.write('.github/workflows/ci.yml', 'on: push\njobs: {}\n')
    repo.write('out.txt', 'x')
    const error = await refusal(() => workflow.assertClean([edit]))
    expect(error.details.rule).toBe('unexpected-changes')
    expect(error.message).toContain('.github/workflows/ci.yml')
    repo.git('checkout', '--', '.github/workflows/ci.yml')

    const tamper = await ValidationWatch.start(repo.dir, git, policy)
    repo.git('config', 'core.hooksPath', '.husky')
    expect((await refusal(() => tamper.assertClean([edit]))).details.rule).toBe('repo-tampered')
    expect(existsSync(join(repo.dir, '.git/config'))).toBe(true)
  })
})

describe('assertCommittedAsApproved', () => {
  const edit = modify('src/a.js', 'export const a = 1\n', 'export const a = 2\n')
  const commitAll = (repo: TestRepo, message: string) =>
    repo.git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qam', message)

  it('accepts one commit on the base holding exactly the approved change', async () => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    const base = repo.git('rev-parse', 'HEAD')
    repo.write('src/a.js', edit.after!)
    commitAll(repo, 'fix')
    await assertCommittedAsApproved(git, base, repo.git('rev-parse', 'HEAD'), [edit], 1)
  })

  it('refuses a commit with another file, other content, a hidden parent or a missing file', async () => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    const base = repo.git('rev-parse', 'HEAD')
    repo.write('README.md', '# Demo!\n')
    commitAll(repo, 'hidden parent')
    repo.write('src/a.js', 'export const a = 3\n')
    commitAll(repo, 'fix')
    const tip = repo.git('rev-parse', 'HEAD')
    const error = await refusal(() => assertCommittedAsApproved(git, base, tip, [edit], 1))
    expect(error.details.rule).toBe('unexpected-changes')
    expect(error.message).toContain('2 commit(s) on the base, made 1')
    expect(error.message).toContain('"README.md" is committed but not approved')
    expect(error.message).toContain('"src/a.js" is committed with other content than approved')
    const other = modify('package.json', `${PACKAGE}\n`, '{}\n')
    const missing = await refusal(() => assertCommittedAsApproved(git, base, tip, [other], 2))
    expect(missing.message).toContain('"package.json" was approved but is not committed')
  })
})
