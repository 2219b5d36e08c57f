import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pushAuth } from '../../src/git/index.js'
import { listenOnLoopback } from '../support/http.js'
import { createRepo } from '../support/repo.js'
import { failure } from '../support/errors.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { BRANCH, GREETING, MESSAGE, changeBranchWorld } from '../support/change-branch-world.js'

/** ChangeBranch (src/change) pushing: refusals mapped to their codes, the token kept to the remote. */

const cleanups = cleanupAfterEach()
const { repoWith, prepare, run } = changeBranchWorld(cleanups)

describe('ChangeBranch: pushing', () => {
  it('maps a push refused by a pre-receive hook to PERMISSION_DENIED; the rollback removes the branch', async () => {
    const repo = repoWith()
    const hook = join(repo.origin, 'hooks', 'pre-receive')
    writeFileSync(hook, '#!/bin/sh\necho "policy: no agent branches here" >&2\nexit 1\n')
    chmodSync(hook, 0o755)
    const base = repo.git('rev-parse', 'HEAD')
    const { branch } = await prepare(repo)
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    await branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
      signoff: true
    })
    const error = await failure(branch.pushBranch())
    expect(error.code).toBe('PERMISSION_DENIED')
    expect(error.details).toMatchObject({ rule: 'push-hook-declined' })
    expect(String(error.details.stderr)).toContain('policy: no agent branches here')
    expect(await branch.rollback()).toEqual([])
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
  })

  it('maps a branch that appeared on origin meanwhile to GIT_CONFLICT, never forcing over it', async () => {
    const repo = repoWith()
    const { branch } = await prepare(repo)
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    await branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
      signoff: true
    })
    // Someone else pushes the branch after our look at origin.
    const other = createRepo({ files: { 'x.txt': 'x\n' }, prefix: 'other' })
    cleanups.push(() => other.cleanup())
    other.git('push', '-q', '--force', repo.origin, `HEAD:refs/heads/${BRANCH}`)
    const theirs = repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)
    const error = await failure(branch.pushBranch())
    expect(error.code).toBe('GIT_CONFLICT')
    await branch.rollback()
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(theirs)
  })

  it('deletes the branch it pushed when a later step fails', async () => {
    const repo = repoWith()
    const { branch } = await run(repo)
    expect(repo.gitOrigin('branch', '--list', BRANCH)).not.toBe('')
    expect(await branch.rollback()).toEqual([])
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
  })

  it('is PERMISSION_DENIED before any work without an origin', async () => {
    const repo = repoWith()
    repo.git('remote', 'remove', 'origin')
    const error = await failure(prepare(repo))
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', details: { rule: 'no-remote' } })
  })

  it('names an origin that cannot be reached as such, with its URL and without credentials', async () => {
    const repo = repoWith()
    const gone = join(repo.root, 'moved-away.git')
    repo.git('remote', 'set-url', 'origin', gone)
    const error = await failure(prepare(repo))
    expect(error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { rule: 'remote-unreachable' }
    })
    expect(error.message).toContain(`Cannot reach the remote origin (${gone})`)
    repo.git(
      'remote',
      'set-url',
      'origin',
      'https://x-access-token:ghs_secret123@127.0.0.1:9/a/b.git'
    )
    const refused = await failure(prepare(repo))
    expect(refused.details).toMatchObject({ rule: 'remote-unreachable' })
    expect(refused.message).toContain('(https://127.0.0.1:9/a/b.git)')
    expect(refused.message).not.toContain('ghs_secret123')
  })

  it('refuses the base, the default branch and unsafe names', async () => {
    const repo = repoWith()
    for (const name of ['main', 'refs/heads/main', 'HEAD', '-f', 'a/../main', 'x.lock']) {
      const error = await failure(prepare(repo, { branch: name }))
      expect(error.code, name).toBe('INVALID_INPUT')
    }
    repo.git('push', '-q', 'origin', 'main:refs/heads/trunk')
    repo.gitOrigin('symbolic-ref', 'HEAD', 'refs/heads/trunk')
    const error = await failure(prepare(repo, { branch: 'trunk' }))
    expect(error.details).toMatchObject({ rule: 'base-branch' })
    const protectedName = await failure(
      prepare(repo, { branch: 'release', protectedBranches: ['release'] })
    )
    expect(protectedName.code).toBe('INVALID_INPUT')
  })

  it('gives the token to the remote commands only, as one Authorization header for the GitHub host', async () => {
    const seen: string[] = []
    const server = createServer((req, res) => {
      seen.push(String(req.headers.authorization ?? ''))
      res.writeHead(403, { 'content-type': 'text/plain' })
      res.end('denied')
    })
    const listening = await listenOnLoopback(server)
    cleanups.push(() => listening.close())
    const host = `http://127.0.0.1:${listening.port}`
    const repo = repoWith()
    repo.git('remote', 'set-url', 'origin', `${host}/acme/widgets.git`)
    // What actions/checkout persists with persist-credentials: true.
    repo.git('config', `http.${host}/.extraheader`, 'AUTHORIZATION: basic cGVyc2lzdGVk')
    const token = 'ghs_looptoken1234567890'
    const auth = pushAuth(token, host)!
    const error = await failure(prepare(repo, { auth }))
    expect(error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { rule: 'remote-unreadable' }
    })
    expect(seen.length).toBeGreaterThan(0)
    const expected = `basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`
    expect(seen.every((header) => header === expected)).toBe(true)
    expect(readFileSync(join(repo.dir, '.git', 'config'), 'utf8')).not.toContain(auth.secret)

    // Scoped to the GitHub server: a remote elsewhere never receives it.
    seen.length = 0
    repo.git('config', '--unset', `http.${host}/.extraheader`)
    await failure(prepare(repo, { auth: pushAuth(token, 'https://github.example') }))
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((header) => header === '')).toBe(true)
  })
})
