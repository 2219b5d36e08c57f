/**
 * Files a model cannot edit as text are refused before any model call (INVALID_INPUT, naming
 * the path and the reason): LFS pointers, binaries, paths inside submodules, and case or
 * Unicode-normalisation twins.
 */
import { describe, expect, it } from 'vitest'
import { twinPaths } from '../../src/policy/index.js'
import { startModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { runOnPlan } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const LFS_POINTER =
  'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n'

async function refusal(
  files: Record<string, string>,
  changes: { path: string; operation: string }[],
  prepare?: (repo: TestRepo) => void
) {
  const repo = createRepo({ files: { 'README.md': '# Demo\n', ...files }, prefix: 'plain' })
  cleanups.push(() => repo.cleanup())
  prepare?.(repo)
  const server = await startModelServer(() => 'never asked')
  cleanups.push(() => server.close())
  const before = repo.git('status', '--porcelain', '--ignored')
  const run = await runOnPlan(repo, {
    issue: { number: 5, title: 'Change a file', body: '' },
    plan: {
      branch_name: 'fix/5-change',
      plan_steps: ['Change it'],
      file_changes: changes,
      validation_commands: []
    },
    inputs: {
      'base-url': server.url,
      'api-key': 'sk-test-plain',
      'comment-on-failure': 'false'
    }
  })
  expect(server.requests).toHaveLength(0)
  expect(repo.git('status', '--porcelain', '--ignored')).toBe(before)
  expect(repo.git('branch', '--list', 'fix/5-change')).toBe('')
  expect(run.outputs['error-code']).toBe('INVALID_INPUT')
  return run.stdout
}

describe('files that are not text to edit', () => {
  it('refuses a Git LFS pointer', async () => {
    const out = await refusal({ 'assets/logo.png': LFS_POINTER }, [
      { path: 'assets/logo.png', operation: 'MODIFY' }
    ])
    expect(out).toContain('"assets/logo.png": it is a Git LFS pointer')
    expect(out).toContain('[rule lfs-pointer]')
  })

  it('refuses a file with a NUL byte, and one the attributes call binary', async () => {
    expect(
      await refusal({ 'data.dat': 'abc\0def\n' }, [{ path: 'data.dat', operation: 'MODIFY' }])
    ).toMatch(/"data\.dat" is not a UTF-8 text file \(binary/)
    expect(
      await refusal({ '.gitattributes': '*.snap -diff\n', 'ui.snap': 'plain text\n' }, [
        { path: 'ui.snap', operation: 'MODIFY' }
      ])
    ).toContain('[rule binary-file]')
  })

  it('refuses a path inside a submodule', async () => {
    const out = await refusal({}, [{ path: 'vendor/lib/new.c', operation: 'CREATE' }], (repo) => {
      const commit = repo.git('rev-parse', 'HEAD')
      repo.git('update-index', '--add', '--cacheinfo', `160000,${commit},vendor/lib`)
      repo.git('commit', '--quiet', '-m', 'add a submodule')
    })
    expect(out).toContain('"vendor/lib/new.c": it lies inside the submodule vendor/lib')
  })

  it('refuses paths that differ only in case, with each other or with the repository', async () => {
    expect(
      await refusal({}, [
        { path: 'README.md', operation: 'MODIFY' },
        { path: 'readme.md', operation: 'CREATE' }
      ])
    ).toContain('"readme.md": it differs from README.md only in letter case')
    expect(
      await refusal({ 'docs/guide.md': 'guide\n' }, [
        { path: 'Docs/intro.md', operation: 'CREATE' }
      ])
    ).toContain('[rule case-twin]')
  })
})

describe('twinPaths', () => {
  it('finds case and normalisation twins, and leaves distinct or identical names alone', () => {
    const nfd = 'cafe\u0301.md'
    const nfc = 'caf\u00e9.md'
    expect(twinPaths([nfd], [nfc])).toEqual([nfd, nfc])
    expect(twinPaths(['src/App.ts'], ['src/app.ts'])).toEqual(['src/App.ts', 'src/app.ts'])
    expect(twinPaths(['SRC/new.ts'], ['src/app.ts'])).toEqual(['SRC/new.ts', 'src'])
    expect(twinPaths(['src/app.ts', 'src/new.ts'], ['src/app.ts'])).toBeUndefined()
    // A repository that already has twins may still edit either of them.
    expect(twinPaths(['readme.md'], ['README.md', 'readme.md'])).toBeUndefined()
  })
})
