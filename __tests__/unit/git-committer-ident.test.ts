import { execFileSync } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { Git } from '../../src/git/index.js'
import { committerIdent } from '../../src/git/identity.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()
const saved = { ...process.env }
afterEach(() => {
  for (const key of ['GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL'])
    if (saved[key] === undefined) delete process.env[key]
    else process.env[key] = saved[key]
})

function repoWith(config: Record<string, string>): TestRepo {
  const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'ident' })
  cleanups.push(() => repo.cleanup())
  for (const [key, value] of Object.entries(config)) repo.git('config', key, value)
  return repo
}

/** What `git var GIT_COMMITTER_IDENT` says through the sealed runner, without its date. */
async function gitSays(git: Git): Promise<string> {
  const out = await git.exec(['var', 'GIT_COMMITTER_IDENT'])
  return out.stdout.trim().replace(/\s+\d+\s+[+-]\d{4}$/, '')
}

describe('committerIdent: git var GIT_COMMITTER_IDENT without its process', () => {
  it.each([
    [
      'user.name and user.email',
      { 'user.name': 'Ada Lovelace', 'user.email': 'ada@example.org' },
      {}
    ],
    [
      'committer.* over user.*',
      { 'user.name': 'A', 'user.email': 'a@e', 'committer.name': 'C B', 'committer.email': 'c@e' },
      {}
    ],
    [
      'the environment over config',
      { 'user.name': 'A', 'user.email': 'a@e' },
      { GIT_COMMITTER_NAME: 'Env Name', GIT_COMMITTER_EMAIL: 'env@e' }
    ],
    ['EMAIL when no email is configured', { 'user.name': 'A' }, { EMAIL: 'mail@e' }]
  ])('matches git for %s', async (_name, config, env) => {
    const repo = repoWith(config)
    if (!('user.email' in config)) repo.git('config', '--unset', 'user.email')
    Object.assign(process.env, env)
    const git = await Git.open(repo.dir)
    const mine = committerIdent(await git.configEntries())
    expect(mine).toBeDefined()
    expect(mine).toBe(await gitSays(git))
  })

  it('leaves to git a name git would change (crud at the ends, angle brackets)', async () => {
    for (const name of ['Trailing dot.', ' Leading space', 'A <b>', '"Quoted"']) {
      const repo = repoWith({ 'user.name': name, 'user.email': 'x@e' })
      const git = await Git.open(repo.dir)
      expect(committerIdent(await git.configEntries())).toBeUndefined()
      expect(await gitSays(git)).not.toBe(`${name} <x@e>`)
    }
  })

  it('is what a signed-off approved commit carries, as git commit --signoff writes it', async () => {
    const repo = repoWith({ 'user.name': 'Ada Lovelace', 'user.email': 'ada@example.org' })
    const git = await Git.open(repo.dir)
    const who = committerIdent(await git.configEntries())
    repo.write('a.txt', 'b\n')
    repo.git('commit', '-qam', 'x', '--signoff')
    const body = execFileSync('git', ['log', '-1', '--format=%B'], {
      cwd: repo.dir,
      encoding: 'utf8'
    })
    expect(body).toContain(`Signed-off-by: ${who}\n`)
  })
})
