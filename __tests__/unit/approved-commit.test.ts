/**
 * The approved-content commit writes only the blobs git does not have: their ids are computed
 * without a process and asked of the run's object reader; what it writes is the approved bytes.
 */
import { describe, expect, it } from 'vitest'
import { commitApproved } from '../../src/change/approved-commit.js'
import { Git } from '../../src/git/git.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

describe('commitApproved', () => {
  it('writes a blob git lacks, and no process for one it has', async () => {
    const repo = createRepo({ prefix: 'approved', files: { 'a/b.txt': 'b\n', 'c.txt': 'c\n' } })
    cleanups.push(() => repo.cleanup())
    const git = await Git.open(repo.dir)
    const head = repo.git('rev-parse', 'HEAD')
    // Started here: the config listing and the reader.
    await git.objects.read(head)
    const content = 'new content, not stored\r\nwith CRLF kept\n'
    repo.git('config', 'core.autocrlf', 'true') // no conversion: the bytes as approved
    const counted = git.processCount
    const { sha: made, message } = await commitApproved(
      git,
      head,
      [{ path: 'a/new.txt', content }],
      'm',
      {
        signoff: false
      }
    )
    // hash-object, mktree, commit-tree (plus one config listing: the config changed)
    expect(git.processCount - counted).toBe(4)
    expect(repo.git('cat-file', 'blob', `${made}:a/new.txt`)).toBe(content.trimEnd())
    expect(message).toBe(repo.git('log', '-1', '--format=%B', made))
    const stored = git.processCount
    const { sha: again } = await commitApproved(
      git,
      head,
      [
        { path: 'a/new.txt', content },
        { path: 'c.txt', content: 'b\n' },
        { path: 'a/b.txt', content: null }
      ],
      'm',
      { signoff: false }
    )
    // Both blobs exist: mktree and commit-tree alone.
    expect(git.processCount - stored).toBe(2)
    expect(repo.git('ls-tree', '-r', '--name-only', again)).toBe('a/new.txt\nc.txt')
    expect(repo.git('cat-file', 'blob', `${again}:c.txt`)).toBe('b')
    git.objects.close()
  })
})
