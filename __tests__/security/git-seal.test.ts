/**
 * Patchsmith's own git never runs a program the repository names (issue 24, point 4): the
 * effective config with its includes is what counts, so every case puts the program in a
 * tracked `.gitconfig` that `.git/config` includes, as many repositories do.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ChangeBranch } from '../../src/change/index.js'
import { Git, gitIncludedPaths } from '../../src/git/index.js'
import { PathPolicy } from '../../src/policy/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { failure } from '../support/errors.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { CANARY, hostileRun, leakedCanaries } from './hostile-run.js'

const cleanups = cleanupAfterEach()
const BRANCH = 'fix/3-greeting'
const PATCH =
  'diff --git a/src/greet.txt b/src/greet.txt\n--- a/src/greet.txt\n+++ b/src/greet.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n'

/** A repository whose config includes its tracked `.gitconfig`; `evil` writes a marker and the env. */
function sealedRepo(gitconfig: string, attributes = ''): TestRepo {
  const repo = createRepo({
    files: {
      'src/greet.txt': 'hello\n',
      'notes.txt': 'mine\n',
      ...(attributes ? { '.gitattributes': attributes } : {})
    },
    prefix: 'seal'
  })
  cleanups.push(() => repo.cleanup())
  const evil = join(repo.root, 'evil.sh')
  writeFileSync(
    evil,
    `#!/bin/sh\necho "$0 $*" >> '${repo.root}/marker'\nenv >> '${repo.root}/marker'\ncat\n`
  )
  chmodSync(evil, 0o755)
  repo.write('.gitconfig', gitconfig.replaceAll('EVIL', evil))
  repo.commitAll('tracked .gitconfig')
  repo.git('config', 'include.path', '../.gitconfig')
  return repo
}

const marker = (repo: TestRepo) => join(repo.root, 'marker')

/** Every kind of git command a run makes: status, stash, checkout, apply, commit, push, restore. */
async function fullRun(repo: TestRepo, between?: () => void) {
  repo.write('notes.txt', 'mine, changed\n') // stashed and put back
  const git = await Git.open(repo.dir)
  const branch = await ChangeBranch.prepare(git, {
    branch: BRANCH,
    plannedPaths: ['src/greet.txt']
  })
  await branch.create()
  between?.()
  const applied = await branch.apply(PATCH, ['src/greet.txt'])
  expect(applied.exitCode, applied.stderr).toBe(0)
  await git.exec(['diff', '--name-only', 'HEAD'])
  await git.exec(['checkout', '--quiet', '--', 'notes.txt'], { allowFailure: true })
  const files = [{ path: 'src/greet.txt', content: 'hello, world\n' }]
  await branch.commit(
    [{ message: 'fix: greet\n\nFixes #3', patch: PATCH, paths: ['src/greet.txt'], files }],
    {
      signoff: true
    }
  )
  await branch.pushBranch()
  expect(await branch.restoreUserChanges()).toEqual([])
  return git
}

describe("Patchsmith's git runs no program the repository's config names", () => {
  it.each([
    [
      'filter clean/smudge',
      '[filter "evil"]\n\tclean = EVIL clean\n\tsmudge = EVIL smudge\n\trequired = true\n',
      '* filter=evil\n'
    ],
    ['filter process', '[filter "evil"]\n\tprocess = EVIL process\n', '* filter=evil\n'],
    [
      'a driver name with = and spaces',
      '[filter "a=b c"]\n\tclean = EVIL clean\n\tsmudge = EVIL smudge\n',
      '* filter=a=b\n'
    ],
    [
      'diff textconv and command',
      '[diff "evil"]\n\ttextconv = EVIL\n\tcommand = EVIL\n',
      '* diff=evil\n'
    ],
    ['merge driver', '[merge "evil"]\n\tdriver = EVIL %O %A %B\n', '* merge=evil\n'],
    ['diff.external', '[diff]\n\texternal = EVIL\n', ''],
    ['core.fsmonitor', '[core]\n\tfsmonitor = EVIL\n', ''],
    [
      'core.pager and editors',
      '[core]\n\tpager = EVIL\n\teditor = EVIL\n[sequence]\n\teditor = EVIL\n',
      ''
    ],
    [
      'gpg.program',
      '[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = EVIL\n[log]\n\tshowSignature = true\n',
      ''
    ]
  ])('%s: the whole change goes through and nothing runs', async (_name, config, attributes) => {
    const repo = sealedRepo(config, attributes)
    await fullRun(repo)
    expect(existsSync(marker(repo)) && readFileSync(marker(repo), 'utf8')).toBe(false)
    expect(repo.gitOrigin('cat-file', '-p', `${BRANCH}:src/greet.txt`)).toBe('hello, world')
  })

  it('core.hooksPath pointing at hooks of the repository: none runs', async () => {
    const repo = sealedRepo('[core]\n\thooksPath = hooks\n')
    mkdirSync(join(repo.dir, 'hooks'))
    for (const hook of [
      'pre-commit',
      'commit-msg',
      'post-commit',
      'post-checkout',
      'pre-push',
      'reference-transaction'
    ]) {
      writeFileSync(join(repo.dir, 'hooks', hook), `#!/bin/sh\necho ${hook} >> '${marker(repo)}'\n`)
      chmodSync(join(repo.dir, 'hooks', hook), 0o755)
    }
    await fullRun(repo)
    expect(existsSync(marker(repo))).toBe(false)
  })

  it('a filter added to the included file in the middle of the run (a model or validation edit) never runs', async () => {
    const repo = sealedRepo('[core]\n\tautocrlf = false\n', '* filter=evil\n')
    await fullRun(repo, () =>
      writeFileSync(
        join(repo.dir, '.gitconfig'),
        `[filter "evil"]\n\tclean = ${join(repo.root, 'evil.sh')}\n\tsmudge = ${join(repo.root, 'evil.sh')}\n`
      )
    )
    expect(existsSync(marker(repo))).toBe(false)
  })

  it('an include that turns on when the branch is checked out (includeIf onbranch:) is read again', async () => {
    const repo = sealedRepo('', '* filter=evil\n')
    repo.write(
      'late.cfg',
      `[filter "evil"]\n\tclean = ${join(repo.root, 'evil.sh')}\n\tsmudge = ${join(repo.root, 'evil.sh')}\n`
    )
    repo.git('config', `includeIf.onbranch:fix/**.path`, '../late.cfg')
    await fullRun(repo)
    expect(existsSync(marker(repo))).toBe(false)
  })

  it.each([
    ['core.sshCommand', 'EVIL'],
    ['core.askPass', 'EVIL'],
    ['credential.helper', '!EVIL'],
    ['url.file:///nowhere/.insteadOf', 'ORIGIN'],
    ['url.file:///nowhere/.pushInsteadOf', 'ORIGIN'],
    ['remote.origin.receivepack', 'EVIL']
  ])(
    '%s in an included file: the push is refused, naming the key and the file',
    async (key, value) => {
      const repo = sealedRepo('')
      const [section, ...rest] = key.split('.')
      const name = rest.pop()!
      const sub = rest.join('.')
      repo.write(
        '.gitconfig',
        `[${section}${sub ? ` "${sub}"` : ''}]\n\t${name} = ${value.replace('EVIL', join(repo.root, 'evil.sh')).replace('ORIGIN', repo.origin)}\n`
      )
      const git = await Git.open(repo.dir)
      const error = await failure(
        ChangeBranch.prepare(git, { branch: BRANCH, plannedPaths: ['src/greet.txt'] })
      )
      expect(error).toMatchObject({
        code: 'SECURITY_VIOLATION',
        details: { rule: 'unsafe-git-config' }
      })
      expect(error.message).toContain(
        key.toLowerCase().replace(/^(url|remote)\.(.*)\.(\w+)$/, '$3')
      )
      expect(error.message).toContain('.gitconfig')
      expect(existsSync(marker(repo))).toBe(false)
    }
  )

  it('git processes get an allowlisted environment: no key, input, runner or unknown variable', async () => {
    const names = ['OPENAI_API_KEY', 'INPUT_API_KEY', 'ACTIONS_RUNTIME_TOKEN', 'DATABASE_URL']
    names.forEach((name) => (process.env[name] = `${name}-canary-value`))
    cleanups.push(() => names.forEach((name) => delete process.env[name]))
    const repo = sealedRepo('')
    const dump = join(repo.root, 'env.txt')
    const hook = join(repo.dir, '.git', 'hooks', 'pre-commit')
    writeFileSync(hook, `#!/bin/sh\nenv > '${dump}'\n`)
    chmodSync(hook, 0o755)
    const git = await Git.open(repo.dir)
    const branch = await ChangeBranch.prepare(git, {
      branch: BRANCH,
      plannedPaths: ['src/greet.txt'],
      push: false
    })
    await branch.create()
    await branch.apply(PATCH, ['src/greet.txt'])
    await branch.commit(
      [{ message: 'fix: greet\n\nFixes #3', patch: PATCH, paths: ['src/greet.txt'] }],
      {
        signoff: false,
        hooks: true
      }
    )
    const env = readFileSync(dump, 'utf8')
    expect(env).toContain('PATH=')
    for (const name of names) expect(env).not.toContain(`${name}-canary-value`)
  })
})

describe('files the config includes are protected paths', () => {
  it('gitIncludedPaths names the included files inside the work tree; the policy protects them', () => {
    const repo = sealedRepo('[include]\n\tpath = tools/more.cfg\n')
    repo.write('tools/more.cfg', '')
    repo.git('config', '--add', 'includeIf.onbranch:main.path', '../config/git "x".cfg')
    repo.git('config', '--add', 'include.path', '/etc/outside.cfg')
    expect(gitIncludedPaths(repo.dir)).toEqual([
      '.gitconfig',
      'config/git "x".cfg',
      'tools/more.cfg'
    ])
    const policy = new PathPolicy({ protectedFiles: gitIncludedPaths(repo.dir) })
    expect(policy.check('tools/more.cfg')).toMatchObject({
      rule: 'protected-path',
      group: 'git-config-include'
    })
    expect(policy.check('TOOLS/More.cfg')).toMatchObject({ rule: 'protected-path' })
    for (const path of ['.gitconfig', 'a/.lfsconfig', '.gitattributes', '.gitmodules'])
      expect(policy.check(path)).toMatchObject({ rule: 'protected-path' })
    expect(policy.check('src/greet.txt')).toBeUndefined()
  })
})

describe('through the action', () => {
  const FILTER = (root: string) =>
    `[filter "evil"]\n\tclean = ${root}/evil.sh\n\tsmudge = ${root}/evil.sh\n`

  // The harness's own git (its before-and-after snapshots) runs the filter too: only a run by
  // Patchsmith's git, whose command line always carries core.quotePath=false, leaves the marker.
  const PATCHSMITH_ONLY = (root: string) =>
    '#!/bin/sh\nparent=$(cut -d" " -f4 /proc/$PPID/stat)\n' +
    'if tr "\\0" " " < /proc/$PPID/cmdline | grep -q core.quotePath=false ||\n' +
    '   tr "\\0" " " < /proc/$parent/cmdline | grep -q core.quotePath=false; then\n' +
    `  env >> '${root}/marker'\nfi\ncat\n`

  function withTrackedFilter(repo: TestRepo): void {
    writeFileSync(join(repo.root, 'evil.sh'), PATCHSMITH_ONLY(repo.root))
    chmodSync(join(repo.root, 'evil.sh'), 0o755)
    repo.write('.gitconfig', FILTER(repo.root))
    repo.write('.gitattributes', '* filter=evil\n')
    repo.commitAll('tracked git config')
    repo.git('config', 'include.path', '../.gitconfig')
  }

  it('a tracked, included filter never runs: the change is committed and pushed, no marker', async () => {
    const hostile = await hostileRun({ setup: withTrackedFilter })
    expect(hostile.result.error).toBeUndefined()
    expect(hostile.result.success).toBe(true)
    expect(existsSync(join(hostile.repo.root, 'marker'))).toBe(false)
    expect(hostile.repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toContain('fix/5-hostile')
    expect(hostile.run.stdout).toContain('names programs (filter.evil.clean')
    expect(leakedCanaries(hostile)).toEqual([])
  })

  it('a model edit of an included config file is refused as protected; nothing runs, nothing is pushed', async () => {
    const hostile = await hostileRun({
      setup: (repo) => {
        withTrackedFilter(repo)
        repo.write('ci/git.cfg', '[core]\n\tautocrlf = false\n')
        repo.commitAll('included config')
        repo.git('config', '--add', 'include.path', '../ci/git.cfg')
      },
      changes: [{ path: 'ci/git.cfg', operation: 'MODIFY' }],
      reply: `--- a/ci/git.cfg\n+++ b/ci/git.cfg\n@@ -1,2 +1,3 @@\n [core]\n \tautocrlf = false\n+\tfsmonitor = ${CANARY.extra}\n`
    })
    expect(hostile.result.error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'protected-path', group: 'git-config-include' }
    })
    expect(hostile.model.requests).toHaveLength(0)
    expect(existsSync(join(hostile.repo.root, 'marker'))).toBe(false)
    expect(hostile.repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
  })

  it('validation that writes a filter into the included .gitconfig is repo-tampered, put back, nothing pushed', async () => {
    const hostile = await hostileRun({
      setup: (repo) => {
        repo.write('.gitconfig', '[core]\n\tautocrlf = false\n')
        repo.write('.gitattributes', '* filter=evil\n')
        repo.commitAll('tracked git config')
        repo.git('config', 'include.path', '../.gitconfig')
      },
      inputs: {
        'validation-commands': `printf '[filter "evil"]\\n\\tclean = touch ../marker; cat\\n' >> .gitconfig`
      }
    })
    expect(hostile.result.error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'repo-tampered' }
    })
    expect(hostile.repo.read('.gitconfig')).toBe('[core]\n\tautocrlf = false\n')
    expect(existsSync(join(hostile.repo.root, 'marker'))).toBe(false)
    expect(hostile.repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
  })

  it.each([
    ['http.https://github.com/.extraheader', () => 'AUTHORIZATION: basic cGVyc2lzdGVk'],
    [
      'includeIf.gitdir:WORK/.git.path',
      (repo: TestRepo) => {
        const file = join(repo.root, 'git-credentials-0b1c.config')
        writeFileSync(
          file,
          '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic cGVyc2lzdGVk\n'
        )
        return file
      }
    ]
  ])('a persisted checkout token (%s) is a warning with the fix at start', async (key, value) => {
    const hostile = await hostileRun({
      setup: (repo) => repo.git('config', key.replace('WORK', repo.dir), value(repo))
    })
    expect(hostile.run.stdout).toMatch(/::warning::.*persist-credentials: false/)
    expect(hostile.run.stdout).not.toContain('cGVyc2lzdGVk')
  })
})
