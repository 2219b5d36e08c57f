/**
 * The seal's remote side and its submodule and trailer gaps (issue 24, point 4): the push goes
 * to the one URL of `.git/config` itself, checked once; repository http.* keys cannot redirect
 * it or expose the token; a repository inside a gitlink's folder is never entered; the sign-off
 * runs no trailer command.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ChangeBranch } from '../../src/change/index.js'
import { Git, RepoIntegrity } from '../../src/git/index.js'
import { assertExpectedRemote } from '../../src/git/expected-remote.js'
import { pushAuth } from '../../src/git/push-auth.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { failure, thrown } from '../support/errors.js'
import { startGitHttpServer } from '../support/git-http-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()
const BRANCH = 'fix/3-greeting'
const TOKEN = 'ghs_sealREMOTEwrite0123456789abcdefgh'
const PATCH =
  'diff --git a/src/greet.txt b/src/greet.txt\n--- a/src/greet.txt\n+++ b/src/greet.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n'

function repo(prefix = 'seal-remote'): TestRepo {
  const made = createRepo({ files: { 'src/greet.txt': 'hello\n' }, prefix })
  cleanups.push(() => made.cleanup())
  return made
}

/** A script that appends to `<root>/marker` whenever it runs. */
function probe(root: string): string {
  const path = join(root, 'probe.sh')
  writeFileSync(path, `#!/bin/sh\necho ran >> '${root}/marker'\ncat\n`)
  chmodSync(path, 0o755)
  return path
}

async function run(target: TestRepo, options: { auth?: ReturnType<typeof pushAuth> } = {}) {
  const git = await Git.open(target.dir)
  const branch = await ChangeBranch.prepare(git, {
    branch: BRANCH,
    plannedPaths: ['src/greet.txt'],
    auth: options.auth
  })
  await branch.create()
  await branch.apply(PATCH, ['src/greet.txt'])
  const files = [{ path: 'src/greet.txt', content: 'hello, world\n' }]
  await branch.commit(
    [{ message: 'fix: greet\n\nFixes #3', patch: PATCH, paths: ['src/greet.txt'], files }],
    { signoff: true }
  )
  await branch.pushBranch()
  return git
}

describe('the push goes to the one URL .git/config sets', () => {
  it('a remote key from an included file is refused, naming the key and the file', async () => {
    const target = repo()
    target.write('.gitconfig', '[remote "origin"]\n\tpushurl = /nowhere.git\n\tmirror = true\n')
    target.commitAll('tracked .gitconfig')
    target.git('config', 'include.path', '../.gitconfig')
    const error = await failure(run(target))
    expect(error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'unsafe-git-config' }
    })
    expect(error.message).toContain('remote.origin.mirror')
    expect(error.message).toContain('.gitconfig')
  })

  it('two urls in .git/config itself are refused: a push would go to both', async () => {
    const target = repo()
    const other = join(target.root, 'other.git')
    execFileSync('git', ['init', '--quiet', '--bare', other])
    target.git('config', '--add', 'remote.origin.url', other)
    const error = await failure(run(target))
    expect(error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'unsafe-git-config' }
    })
    expect(execFileSync('git', ['-C', other, 'for-each-ref']).toString()).toBe('')
    expect(target.gitOrigin('for-each-ref', `refs/heads/${BRANCH}`)).toBe('')
  })

  it('under Actions, a network remote that is not the workflow repository is refused', () => {
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'acme/widgets',
      GITHUB_SERVER_URL: 'https://github.com'
    }
    for (const url of [
      'https://github.com/acme/widgets',
      'https://x-access-token:t@github.com/Acme/Widgets.git',
      'git@github.com:acme/widgets.git',
      'ssh://git@github.com/acme/widgets.git',
      '/srv/mirror/widgets.git',
      'file:///srv/mirror/widgets.git'
    ])
      expect(() => assertExpectedRemote('origin', url, env)).not.toThrow()
    for (const url of [
      'https://github.com/evil/widgets.git',
      'https://github.com.evil.example/acme/widgets.git',
      'https://github.com:8443/acme/widgets.git',
      'git@evil.example:acme/widgets.git',
      'ssh://git@github.com/acme/other.git'
    ])
      expect(thrown(() => assertExpectedRemote('origin', url, env))).toMatchObject({
        code: 'SECURITY_VIOLATION',
        details: { rule: 'unexpected-remote' }
      })
    expect(() =>
      assertExpectedRemote('origin', 'https://evil.example/x', { GITHUB_ACTIONS: 'false' })
    ).not.toThrow()
  })
})

describe('http.* keys of the repository', () => {
  async function httpOrigin(target: TestRepo) {
    const remote = await startGitHttpServer(target.origin, { writeTokens: [TOKEN] })
    cleanups.push(() => remote.close())
    target.git('remote', 'set-url', 'origin', remote.url)
    return remote
  }

  it("the header actions/checkout persists is replaced by the push's own: only the token is sent", async () => {
    const target = repo()
    const remote = await httpOrigin(target)
    const stale = Buffer.from('x-access-token:ghs_checkoutPERSISTED').toString('base64')
    target.git('config', `http.${remote.origin}/.extraheader`, `AUTHORIZATION: basic ${stale}`)
    await run(target, { auth: pushAuth(TOKEN, remote.origin) })
    expect(target.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toMatch(/^[0-9a-f]{40}$/)
    const pushes = remote.requests.filter((r) => r.path.endsWith('/git-receive-pack'))
    expect(pushes.length).toBeGreaterThan(0)
    expect(pushes.every((r) => r.token === TOKEN)).toBe(true)
  })

  it.each([
    ['a per-URL header more specific than the push', 'http.ORIGIN/acme.extraheader', 'X-A: b'],
    ['a proxy for the server', 'http.ORIGIN/.proxy', 'http://127.0.0.1:9'],
    ['a cookie file the token is saved to', 'http.cookieFile', 'COOKIES'],
    ['a CA the runner does not trust', 'http.sslCAInfo', '/tmp/ca.pem']
  ])('%s is refused, naming the key; nothing is sent', async (_what, key, value) => {
    const target = repo()
    const remote = await httpOrigin(target)
    target.git(
      'config',
      key.replace('ORIGIN', remote.origin),
      value.replace('COOKIES', join(target.root, 'cookies'))
    )
    const error = await failure(run(target, { auth: pushAuth(TOKEN, remote.origin) }))
    expect(error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'unsafe-git-config' }
    })
    expect(error.message.toLowerCase()).toContain(key.split('.').pop()!.toLowerCase())
    expect(remote.requests).toEqual([])
  })
})

describe('a repository inside a gitlink folder is never entered', () => {
  function withSubmodule(): { target: TestRepo; marker: string } {
    const target = repo('seal-submodule')
    const sub = join(target.dir, 'vendor/lib')
    mkdirSync(sub, { recursive: true })
    execFileSync('git', ['init', '-q', sub])
    writeFileSync(join(sub, 'f'), 'data\n')
    const ident = ['-c', 'user.name=a', '-c', 'user.email=a@b']
    execFileSync('git', ['-C', sub, 'add', 'f'])
    execFileSync('git', ['-C', sub, ...ident, 'commit', '-qm', 's'])
    const sha = execFileSync('git', ['-C', sub, 'rev-parse', 'HEAD']).toString().trim()
    target.write('.gitmodules', '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./lib.git\n')
    target.git('add', '.gitmodules')
    target.git('update-index', '--add', '--cacheinfo', `160000,${sha},vendor/lib`)
    target.git('commit', '--quiet', '-m', 'submodule')
    // What validation or a hook could write after the start: a filter of its own.
    execFileSync('git', ['-C', sub, 'config', 'filter.x.clean', probe(target.root)])
    writeFileSync(join(sub, '.git/info/attributes'), '* filter=x\n')
    return { target, marker: join(target.root, 'marker') }
  }

  it("Patchsmith's status and diff do not look into it (its filter never runs)", async () => {
    const { target, marker } = withSubmodule()
    const git = await Git.open(target.dir)
    execFileSync('touch', ['-d', '2001-01-01', join(target.dir, 'vendor/lib/f')])
    await git.status()
    execFileSync('touch', ['-d', '2002-01-01', join(target.dir, 'vendor/lib/f')])
    await git.exec(['diff', '--name-only', 'HEAD'])
    expect(existsSync(marker)).toBe(false)
  })

  it("RepoIntegrity sees a .git appear in a gitlink's folder, a gitlink added, .git/modules written", async () => {
    const { target } = withSubmodule()
    const sub = join(target.dir, 'vendor/lib/.git')
    execFileSync('mv', [sub, `${sub}.away`])
    const guard = await RepoIntegrity.snapshot(target.dir)
    execFileSync('mv', [`${sub}.away`, sub])
    expect(guard.changes()).toContain(sub)
    guard.restore()
    expect(existsSync(sub)).toBe(false)

    const before = await RepoIntegrity.snapshot(target.dir)
    target.git('update-index', '--add', '--cacheinfo', `160000,${'2'.repeat(40)},other`)
    mkdirSync(join(target.dir, '.git/modules/x'), { recursive: true })
    writeFileSync(join(target.dir, '.git/modules/x/config'), '[core]\n')
    const changed = before.changes()
    expect(changed.some((path) => path.endsWith('(gitlinks 20)'))).toBe(true)
    expect(changed).toContain(join(target.dir, '.git/modules/x/config'))
  })
})

describe('the sign-off', () => {
  it('runs no trailer.<key>.cmd of the repository, and is added as git commit --signoff would', async () => {
    const target = repo()
    const script = probe(target.root)
    target.git('config', 'trailer.sign.key', 'Signed-off-by')
    target.git('config', 'trailer.sign.cmd', script)
    target.git('config', 'trailer.audit.command', script)
    await run(target)
    expect(existsSync(join(target.root, 'marker'))).toBe(false)
    const message = target.gitOrigin('log', '-1', '--format=%B', `refs/heads/${BRANCH}`)
    expect(message).toMatch(
      /^fix: greet\n\nFixes #3\n\nSigned-off-by: [^\n]+ <[^\n]+>\nPatchsmith-Commit: validated\n*$/
    )
  })
})
