/**
 * HEAD's names along the planned paths, read tree by tree through the object reader, are
 * exactly what `git ls-tree -z --full-tree HEAD -- . <folders>/` listed (the oracle): order,
 * modes, submodules, names with glob characters, spaces and Unicode, paths through a file.
 */
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git.js'
import { namesAlong } from '../../src/policy/plan-files.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo, type TestRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

function lsTree(repo: TestRepo, paths: readonly string[]): string[] {
  const folders = new Set<string>()
  for (const path of paths) {
    const parts = path.split('/')
    for (let i = 1; i < parts.length; i++) folders.add(`${parts.slice(0, i).join('/')}/`)
  }
  const args = ['--literal-pathspecs', 'ls-tree', '-z', '--full-tree', 'HEAD', '--', '.']
  return repo
    .git(...args, ...folders)
    .split('\0')
    .filter(Boolean)
}

describe('namesAlong', () => {
  it('lists what ls-tree lists for the folders along the planned paths', async () => {
    const repo = createRepo({
      prefix: 'names',
      files: {
        'README.md': '#\n',
        'a/b/c.txt': 'c\n',
        'a/B.txt': 'B\n',
        'a/e/f.txt': 'f\n',
        'a*/g.txt': 'g\n',
        'a b ü/h.txt': 'h\n',
        'a-b': 'ab\n',
        'z/y/x/w.txt': 'w\n'
      }
    })
    cleanups.push(() => repo.cleanup())
    repo.git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},a/sub`)
    repo.git('commit', '-q', '-m', 'submodule')
    const git = await Git.open(repo.dir)
    const plans = [
      ['README.md'],
      ['a/b/c.txt'],
      ['a/sub/inside.txt', 'a*/g.txt'],
      ['a b ü/new.txt', 'z/y/x/w.txt', 'a/e/new/deep.txt'],
      ['README.md/x', 'a-b/c', 'new/folder/file.txt'],
      ['a/b/c.txt', 'a/B.txt']
    ]
    for (const paths of plans) expect(await namesAlong(git, paths)).toEqual(lsTree(repo, paths))
    git.objects.close()
  })

  it('lists nothing before the first commit', async () => {
    const repo = createRepo({ prefix: 'names', files: {} })
    cleanups.push(() => repo.cleanup())
    repo.git('checkout', '-q', '--orphan', 'empty')
    const git = await Git.open(repo.dir)
    expect(await namesAlong(git, ['a/b.txt'])).toEqual([])
    git.objects.close()
  })
})
