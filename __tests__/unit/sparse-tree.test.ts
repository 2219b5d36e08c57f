/**
 * The approved commit's tree read and written folder by folder (sparseTree) is exactly the tree
 * git builds from the whole parent in an index; paths it cannot build leave it to that index.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git.js'
import { sparseTree, type TreeChange } from '../../src/change/sparse-tree.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo, type TestRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

function repoWith(): TestRepo {
  const repo = createRepo({
    prefix: 'sparse',
    files: {
      'README.md': '# Demo\n',
      'a/b/c.txt': 'c\n',
      'a/d.txt': 'd\n',
      'a/e/f.txt': 'f\n',
      'a*/g.txt': 'g\n',
      'a-b': 'ab\n',
      'only/one.txt': '1\n',
      'run.sh': '#!/bin/sh\n'
    }
  })
  repo.git('update-index', '--chmod=+x', 'run.sh')
  repo.git('update-index', '--add', '--cacheinfo', `120000,${blob(repo, 'a/d.txt')},link`)
  repo.git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub`)
  repo.git('commit', '-q', '-m', 'shapes')
  cleanups.push(() => repo.cleanup())
  return repo
}

function blob(repo: TestRepo, content: string): string {
  return repo.git('hash-object', '-w', '--no-filters', content)
}

/** git's own answer: the whole parent in a scratch index, the changes, write-tree. */
function indexTree(repo: TestRepo, changes: readonly TreeChange[]): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(repo.root, 'scratch-index') }
  const git = (args: string[], input?: string) =>
    execFileSync('git', args, { cwd: repo.dir, env, input, encoding: 'utf8' })
  git(['read-tree', 'HEAD'])
  const mode = (path: string) =>
    /^(\d{6}) blob/.exec(git(['ls-tree', 'HEAD', '--', path]))?.[1] ?? '100644'
  const lines = changes.map((c) =>
    c.blob === null ? `0 ${'0'.repeat(40)}\t${c.path}` : `${mode(c.path)} ${c.blob}\t${c.path}`
  )
  git(['update-index', '-z', '--index-info'], lines.map((l) => `${l}\0`).join(''))
  return git(['write-tree']).trim()
}

describe('sparseTree', () => {
  it('builds the same tree as the whole parent in an index', async () => {
    const repo = repoWith()
    repo.write('new.txt', 'new\n')
    const x = blob(repo, 'new.txt')
    const cases: TreeChange[][] = [
      [{ path: 'README.md', blob: x }],
      [{ path: 'a/b/c.txt', blob: x }],
      [
        { path: 'a/b/new/deep.txt', blob: x },
        { path: 'z/new.txt', blob: x }
      ],
      [
        { path: 'a*/g.txt', blob: x },
        { path: 'a-b', blob: null }
      ],
      [
        { path: 'run.sh', blob: x },
        { path: 'link', blob: x }
      ],
      [{ path: 'only/one.txt', blob: null }],
      [
        { path: 'a/b/c.txt', blob: null },
        { path: 'a/e/g.txt', blob: x }
      ],
      [
        { path: 'a/B', blob: x },
        { path: 'a/b.txt', blob: x },
        { path: 'a/b-', blob: x }
      ]
    ]
    const git = await Git.open(repo.dir)
    // Also the config listing every process is sealed with, read once.
    const head = (await git.exec(['rev-parse', 'HEAD'])).stdout.trim()
    for (const [i, changes] of cases.entries()) {
      const before = git.processCount
      expect(await sparseTree(git, head, changes)).toBe(indexTree(repo, changes))
      // mktree alone: the folders are read through the run's one object reader, started once.
      expect(git.processCount - before).toBe(i === 0 ? 2 : 1)
    }
    git.objects.close()
  })

  it('leaves a path through a file or submodule, or onto a folder, to the private index', async () => {
    const repo = repoWith()
    const git = await Git.open(repo.dir)
    const head = repo.git('rev-parse', 'HEAD')
    const x = blob(repo, 'README.md')
    for (const path of ['README.md/x', 'sub/x', 'sub', 'a/b', 'a', 'a/b/c.txt/d'])
      expect(await sparseTree(git, head, [{ path, blob: x }])).toBeUndefined()
  })
})
