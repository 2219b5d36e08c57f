/**
 * Programs Patchsmith's own git starts on the host by name (`ssh` for an ssh remote, a credential
 * helper) come from its PATH: never from an entry into the work tree, where a committed or
 * model-edited `bin/ssh` would run as root outside the jail with the push token in its
 * environment (attack round 15).
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/index.js'
import { driverSeal } from '../../src/git/repo-config.js'
import { hostPath, trustedOnHost, trustedProgramValue } from '../../src/sandbox/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

/** An ssh's script that serves `git@host:PATH` from `root`: what the runner's own would reach. */
function forwarding(root: string): string {
  return `for a; do last=$a; done\ncd '${root}' && exec /bin/sh -c "$last"\n`
}

/** How many folders deep git's install prefix is (`/usr`: 1), from its exec path. */
function prefixDepth(): number {
  const exec = execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim()
  const prefix = exec.replace(/\/(lib|libexec)(\/[^/]+)?\/git-core$/, '')
  return prefix.split('/').filter(Boolean).length
}

/**
 * GIT_CONFIG_GLOBAL naming a file beside the work tree whose core.sshCommand is `program`: in
 * the tree where it has a folder, else a bare name.
 */
function globalConfig(program: string) {
  return (dir: string): Record<string, string> => {
    const file = join(dirname(dir), 'global.gitconfig')
    const value = program.includes('/') ? join(dir, program) : program
    writeFileSync(file, `[core]\n\tsshCommand = ${value}\n`)
    return { GIT_CONFIG_GLOBAL: file }
  }
}

/** A folder beside the work tree holding `name`, a link to the tree's `bin/ssh`. */
function linkedInto(name: string) {
  return (dir: string): string => {
    const folder = join(dirname(dir), 'linked-bin')
    mkdirSync(folder)
    symlinkSync(join(dir, 'bin', 'ssh'), join(folder, name))
    return folder
  }
}

describe("git's own programs on the host", () => {
  const none = (): Record<string, string> => ({})
  it.each([
    ['an absolute entry into the work tree', (dir: string) => join(dir, 'bin'), none],
    ['a relative entry', () => 'bin', none],
    ['an empty entry (the working folder)', () => '', none],
    // `lnk/..` is the folder above where the link leads: the tree's bin (attack round 17).
    ['an entry through a link and ..', (dir: string) => `${dirname(dir)}/lnk/..`, none],
    // A folder outside the tree whose ssh is a link into it (attack round 22).
    ['a link in a trusted folder', linkedInto('ssh'), none],
    // git's own variables (attack round 17): each falls back on the runner's ssh.
    [
      'GIT_SSH_COMMAND',
      () => '/nowhere',
      (dir: string) => ({ GIT_SSH_COMMAND: `${dir}/bin/ssh -T` })
    ],
    ['GIT_SSH', () => '/nowhere', (dir: string) => ({ GIT_SSH: `${dir}/bin/ssh` })],
    [
      'an argument of GIT_SSH_COMMAND',
      () => '/nowhere',
      (dir: string) => ({ GIT_SSH_COMMAND: `sh ${dir}/bin/ssh` })
    ],
    ['GIT_EXEC_PATH', () => '/nowhere', (dir: string) => ({ GIT_EXEC_PATH: `${dir}/bin` })],
    // A relative exec path is made absolute from the work tree (attack round 18).
    ['a relative GIT_EXEC_PATH', () => '/nowhere', () => ({ GIT_EXEC_PATH: 'bin' })],
    // The user's command-line config (attack round 18): emptied by the seal where it runs one.
    [
      'core.sshCommand in GIT_CONFIG_COUNT',
      () => '/nowhere',
      (dir: string) => ({
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'core.sshCommand',
        GIT_CONFIG_VALUE_0: `${dir}/bin/ssh`
      })
    ],
    [
      'core.sshCommand in GIT_CONFIG_PARAMETERS',
      () => '/nowhere',
      (dir: string) => ({ GIT_CONFIG_PARAMETERS: `'core.sshCommand'='sh ${dir}/bin/ssh'` })
    ],
    // The user's global config (attack round 22): sealed like the command line's, not refused.
    ['core.sshCommand in the global config', () => '/nowhere', globalConfig('bin/ssh')],
    // A bare name git's shell finds on PATH, a link there into the tree (attack round 23).
    ['a bare name in the global config', linkedInto('deploy-ssh'), globalConfig('deploy-ssh')],
    [
      'a bare argument of GIT_SSH_COMMAND',
      linkedInto('deploy-ssh'),
      () => ({ GIT_SSH_COMMAND: 'env deploy-ssh' })
    ]
  ])(
    'never come from %s: a committed ssh does not run, the runner’s does',
    async (_, entry, vars) => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'host-ssh' })
      cleanups.push(() => repo.cleanup())
      const marker = join(repo.root, 'ran-on-host')
      const served = join(repo.root, 'served', 'acme')
      mkdirSync(served, { recursive: true })
      symlinkSync(repo.origin, join(served, 'widgets.git'))
      const planted = `#!/bin/sh\ntouch '${marker}'\n${forwarding(join(repo.root, 'served'))}`
      for (const path of ['bin/ssh', 'ssh']) {
        repo.write(path, planted)
        chmodSync(join(repo.dir, path), 0o755)
      }
      repo.commitAll('an ssh of the repository')
      repo.git('remote', 'set-url', 'origin', 'git@github.com:acme/widgets.git')
      const runner = join(repo.root, 'runner-bin')
      mkdirSync(runner)
      writeFileSync(join(runner, 'ssh'), `#!/bin/sh\n${forwarding(join(repo.root, 'served'))}`, {
        mode: 0o755
      })
      symlinkSync(join(repo.dir, 'bin', 'sub'), join(repo.root, 'lnk'))
      mkdirSync(join(repo.dir, 'bin', 'sub'))
      const saved = { ...process.env }
      Object.assign(process.env, vars(repo.dir), {
        PATH: `${entry(repo.dir)}:${runner}:${saved.PATH}`
      })
      try {
        const git = await Git.open(repo.dir)
        const output = await git.exec(['ls-remote', 'origin', 'refs/heads/main'], { network: true })
        expect(output.stdout).toContain(repo.gitOrigin('rev-parse', 'main'))
      } finally {
        for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
        process.env.PATH = saved.PATH
      }
      expect(existsSync(marker)).toBe(false)
    }
  )

  it("keep the user's own global core.sshCommand (a deploy key's) where it runs nothing of the tree's", async () => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'host-deploy-ssh' })
    cleanups.push(() => repo.cleanup())
    const served = join(repo.root, 'served', 'acme')
    mkdirSync(served, { recursive: true })
    symlinkSync(repo.origin, join(served, 'widgets.git'))
    repo.git('remote', 'set-url', 'origin', 'git@github.com:acme/widgets.git')
    const used = join(repo.root, 'deploy-key-used')
    const deploy = join(repo.root, 'runner-bin', 'deploy-ssh')
    mkdirSync(dirname(deploy))
    writeFileSync(deploy, `#!/bin/sh\ntouch '${used}'\n${forwarding(join(repo.root, 'served'))}`, {
      mode: 0o755
    })
    writeFileSync(join(repo.root, 'global'), `[core]\n\tsshCommand = ${deploy} -i /dev/null\n`)
    process.env.GIT_CONFIG_GLOBAL = join(repo.root, 'global')
    try {
      const git = await Git.open(repo.dir)
      const output = await git.exec(['ls-remote', 'origin', 'refs/heads/main'], { network: true })
      expect(output.stdout).toContain(repo.gitOrigin('rev-parse', 'main'))
    } finally {
      delete process.env.GIT_CONFIG_GLOBAL
    }
    expect(existsSync(used)).toBe(true)
  })

  it("take nothing from a repository file the user's command-line config includes: refused as the repository's (attack round 18)", async () => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'host-include' })
    cleanups.push(() => repo.cleanup())
    repo.write('.gitconfig', '[core]\n\tsshCommand = bin/ssh\n')
    repo.commitAll('an included config')
    repo.git('remote', 'set-url', 'origin', 'git@github.com:acme/widgets.git')
    const vars = {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'include.path',
      GIT_CONFIG_VALUE_0: join(repo.dir, '.gitconfig')
    }
    Object.assign(process.env, vars)
    try {
      const git = await Git.open(repo.dir)
      const refused = git.exec(['ls-remote', 'origin'], { network: true })
      await expect(refused).rejects.toThrow(/core\.sshcommand \(in .*\.gitconfig\)/)
    } finally {
      for (const name of Object.keys(vars)) delete process.env[name]
    }
  })

  it.each([
    ['by its path', (dir: string) => join(dir, 'ci', 'git.cfg')],
    // `L/..` where L links to the tree's ci/sub: ci, as the kernel reads it (attack round 20).
    ['through a link and ..', (dir: string) => `${dirname(dir)}/L/../git.cfg`],
    // From git's install prefix, up to the root and down into the tree (attack round 21).
    [
      'from %(prefix)',
      (dir: string) => `%(prefix)/${'../'.repeat(prefixDepth())}${dir.slice(1)}/ci/git.cfg`
    ]
  ])(
    'list again a repository file the command-line config includes %s once an edit fills it (attack rounds 19, 20)',
    async (_, included) => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'host-late-include' })
      cleanups.push(() => repo.cleanup())
      const marker = join(repo.root, 'ran-on-host')
      repo.write('ci/git.cfg', '# empty for now\n')
      repo.write('ci/sub/keep', '')
      repo.write('bin/ssh', `#!/bin/sh\ntouch '${marker}'\nexit 1\n`)
      chmodSync(join(repo.dir, 'bin/ssh'), 0o755)
      repo.commitAll('an included config, empty')
      repo.git('remote', 'set-url', 'origin', 'git@github.com:acme/widgets.git')
      symlinkSync(join(repo.dir, 'ci', 'sub'), join(repo.root, 'L'))
      const vars = {
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'include.path',
        GIT_CONFIG_VALUE_0: included(repo.dir)
      }
      Object.assign(process.env, vars)
      try {
        const git = await Git.open(repo.dir)
        await git.exec(['status', '--porcelain'])
        // What an approved model edit could write there.
        repo.write('ci/git.cfg', '[core]\n\tsshCommand = bin/ssh\n')
        const refused = git.exec(['ls-remote', 'origin'], { network: true })
        await expect(refused).rejects.toThrow(/unsafe-git-config/)
      } finally {
        for (const name of Object.keys(vars)) delete process.env[name]
      }
      expect(existsSync(marker)).toBe(false)
    }
  )

  it('refuse a command-line url rewrite into the work tree (its hooks would run on the host), and keep an include from outside it (attack round 19)', async () => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'host-insteadof' })
    cleanups.push(() => repo.cleanup())
    repo.git('remote', 'set-url', 'origin', 'git@github.com:acme/widgets.git')
    const fake = join(repo.dir, 'fake.git')
    const rewrite = {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `url.${fake}.insteadOf`,
      GIT_CONFIG_VALUE_0: 'git@github.com:acme/widgets.git'
    }
    // The workspace around a repository in its subfolder is not the repository's own.
    writeFileSync(join(repo.root, 'ci.gitconfig'), '[url "git@github.com:"]\n\tinsteadOf = gh:\n')
    const include = {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'include.path',
      GIT_CONFIG_VALUE_0: join(repo.root, 'ci.gitconfig'),
      GITHUB_WORKSPACE: repo.root
    }
    // A relative base is a path from where git runs: the work tree; git drops a file URL's
    // host (attack round 20).
    const relative = { ...rewrite, GIT_CONFIG_KEY_0: 'url.fake.git.insteadOf' }
    const localhost = { ...rewrite, GIT_CONFIG_KEY_0: `url.file://localhost${fake}.insteadOf` }
    // A remote's push URL to this machine, or its receive-pack from the tree (attack round 21).
    const pushurl = {
      ...rewrite,
      GIT_CONFIG_KEY_0: 'remote.origin.pushurl',
      GIT_CONFIG_VALUE_0: fake
    }
    const receivepack = {
      ...pushurl,
      GIT_CONFIG_KEY_0: 'remote.origin.receivepack',
      GIT_CONFIG_VALUE_0: `${repo.dir}/tools/rp`
    }
    // A work-tree file the user's global config includes (a setup step's `git config --global
    // include.path`) is the repository's too (attack round 22).
    repo.write('.gitconfig', `[url "${fake}"]\n\tinsteadOf = git@github.com:acme/widgets.git\n`)
    writeFileSync(
      join(repo.root, 'global'),
      `[include]\n\tpath = ${join(repo.dir, '.gitconfig')}\n`
    )
    const globalInclude = { GIT_CONFIG_GLOBAL: join(repo.root, 'global') }
    // Even to a server elsewhere: the push would go to the attacker's repository (round 23).
    repo.write(
      'elsewhere.gitconfig',
      '[url "git@github.com:attacker/loot.git"]\n\tinsteadOf = git@github.com:acme/widgets.git\n'
    )
    writeFileSync(
      join(repo.root, 'global-elsewhere'),
      `[include]\n\tpath = ${join(repo.dir, 'elsewhere.gitconfig')}\n`
    )
    const globalElsewhere = { GIT_CONFIG_GLOBAL: join(repo.root, 'global-elsewhere') }
    for (const [vars, refused] of [
      [globalInclude, true],
      [globalElsewhere, true],
      [rewrite, true],
      [relative, true],
      [localhost, true],
      [pushurl, true],
      [receivepack, true],
      [include, false]
    ] as const) {
      const saved = { ...process.env }
      Object.assign(process.env, vars)
      try {
        const git = await Git.open(repo.dir)
        const listed = git.exec(['config', '--list'], { network: true })
        if (refused) await expect(listed).rejects.toThrow(/unsafe-git-config/)
        else await expect(listed).resolves.toBeDefined()
      } finally {
        for (const name of Object.keys(vars))
          if (saved[name] === undefined) delete process.env[name]
          else process.env[name] = saved[name]
      }
    }
  })

  it('trust no way through the tree: a link chain passing a link there, an alias of /proc/self, a bind mount of the tree (attack round 16), a procfs mounted elsewhere (round 17), a bind mount where the tree is a bind mount itself (round 22), a file system mounted in the tree (round 23)', () => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'host-trust' })
    cleanups.push(() => repo.cleanup())
    const system = dirname(
      execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
    )
    // A host link to a committed link to the system's folder: the tree's link can be repointed.
    symlinkSync(system, join(repo.dir, 'toolbox'))
    symlinkSync(join(repo.dir, 'toolbox'), join(repo.root, 'tools'))
    expect(trustedOnHost(join(repo.root, 'tools', 'git'), [repo.dir])).toBe(false)
    expect(trustedOnHost(join(system, 'git'), [repo.dir])).toBe(true)
    // A host link to /proc/self: its cwd is the work tree in git started there.
    symlinkSync('/proc/self', join(repo.root, 'self'))
    expect(trustedOnHost(join(repo.root, 'self', 'cwd', 'bin'), [repo.dir])).toBe(false)
    // A folder that is not there (yet) is not trusted either.
    expect(trustedOnHost(join(repo.root, 'later', 'bin'), [repo.dir])).toBe(false)
    if (process.getuid?.() !== 0) return
    const alias = join(repo.root, 'alias')
    mkdirSync(alias)
    mkdirSync(join(repo.dir, 'bin'))
    execFileSync('mount', ['--bind', repo.dir, alias])
    try {
      expect(trustedOnHost(join(alias, 'bin'), [repo.dir])).toBe(false)
    } finally {
      execFileSync('umount', [alias])
    }
    // A bind mount of one of the tree's folders (attack round 17).
    execFileSync('mount', ['--bind', join(repo.dir, 'bin'), alias])
    try {
      expect(trustedOnHost(alias, [repo.dir])).toBe(false)
      expect(trustedOnHost(join(alias, '.'), [repo.dir])).toBe(false)
    } finally {
      execFileSync('umount', [alias])
    }
    // The tree itself reached through a bind mount of part of a file system (a container's
    // workspace), that file system mounted whole elsewhere or not at all (attack round 22).
    for (const whole of [true, false]) {
      const [fs, seen, other] = ['fs', 'seen', 'other'].map((name) => join(repo.root, name))
      for (const folder of [fs, seen, other]) mkdirSync(folder, { recursive: true })
      execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', fs!])
      for (const folder of ['sub/tree/bin', 'sub/elsewhere'])
        mkdirSync(join(fs!, folder), { recursive: true })
      execFileSync('mount', ['--bind', join(fs!, 'sub'), seen!])
      if (!whole) execFileSync('umount', [fs!])
      const tree = join(seen!, 'tree')
      execFileSync('mount', ['--bind', join(tree, 'bin'), alias])
      execFileSync('mount', ['--bind', join(seen!, 'elsewhere'), other!])
      try {
        expect(trustedOnHost(alias, [tree])).toBe(false)
        expect(trustedOnHost(other!, [tree])).toBe(true)
      } finally {
        for (const point of [alias, other!, seen!, ...(whole ? [fs!] : [])])
          execFileSync('umount', [point])
      }
    }
    // A file system mounted inside the tree, shown elsewhere too (attack round 23).
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', join(repo.dir, 'bin')])
    execFileSync('mount', ['--bind', join(repo.dir, 'bin'), alias])
    try {
      expect(trustedOnHost(alias, [repo.dir])).toBe(false)
    } finally {
      execFileSync('umount', [alias])
      execFileSync('umount', [join(repo.dir, 'bin')])
    }
    // A procfs mounted elsewhere (attack round 17): its self/cwd is the tree in a child there.
    const proc = join(repo.root, 'proc')
    mkdirSync(proc)
    execFileSync('mount', ['-t', 'proc', 'proc', proc])
    try {
      // Refused as a procfs, wherever the rest of the way leads (here the root's /usr/bin).
      expect(trustedOnHost(join(proc, 'self', 'root', 'usr', 'bin'), [repo.dir])).toBe(false)
      expect(trustedOnHost(join(proc, 'self', 'cwd', 'usr', 'bin'), [repo.dir])).toBe(false)
    } finally {
      execFileSync('umount', [proc])
    }
  })

  it("seal the repository's credential helpers (a lazy fetch would start them), keep the user's trusted ones (attack round 23)", () => {
    const helper = (scope: string, value: string) => ({
      scope,
      origin: scope === 'local' ? '/w/.git/config' : '/root/.gitconfig',
      key: 'credential.https://github.com.helper',
      value
    })
    expect(driverSeal([helper('local', '!tools/cred')], '/w')).toEqual([
      ['credential.https://github.com.helper', '']
    ])
    expect(driverSeal([helper('global', 'cache --timeout=60')], '/w')).toEqual([])
  })

  it('get a PATH of trusted entries alone, never an empty one', () => {
    const tree = '/work/tree'
    const path = [
      `${tree}/bin`,
      'bin',
      '',
      '/proc/self/cwd/bin',
      '/dev/fd/3',
      `${tree}/../tree/node_modules/.bin`,
      '/usr/bin'
    ].join(':')
    expect(hostPath(path, [tree])).toBe('/usr/bin')
    expect(hostPath(`bin::${tree}/bin`, [tree])).toBe('/usr/bin:/bin')
    expect(hostPath(undefined, [tree])).toBe('/usr/bin:/bin')
    expect(trustedOnHost('/proc/self/cwd/bin/git', [])).toBe(false)
    const options = 'ssh -o UserKnownHostsFile=/dev/null -i ~/.ssh/deploy_key'
    expect(trustedProgramValue(options, [tree])).toBe(true)
    for (const value of [`ssh -F ${tree}/ssh_config`, 'ssh -F ./cfg', 'cd x && ./ssh'])
      expect(trustedProgramValue(value, [tree]), value).toBe(false)
    expect(trustedOnHost('/usr/bin/git', [tree])).toBe(true)
  })

  it('trust no program that is a hard link of a file of the tree: validation on the tree itself rewrites it in place (attack round 23)', () => {
    const repo = createRepo({
      files: { 'tools/deploy-ssh': '#!/bin/sh\n' },
      prefix: 'host-hard-link'
    })
    cleanups.push(() => repo.cleanup())
    // A setup step's hard link (`ln`, `cp -l`) of the tree's program into a folder on PATH.
    const [bin, other] = ['bin', 'other'].map((name) => join(repo.root, name))
    for (const folder of [bin!, other!]) mkdirSync(folder)
    linkSync(join(repo.dir, 'tools', 'deploy-ssh'), join(bin!, 'deploy-ssh'))
    linkSync(join(repo.dir, 'tools', 'deploy-ssh'), join(bin!, 'ssh'))
    // A hard link of a file outside the tree is nothing of the tree's.
    writeFileSync(join(other!, 'own-ssh'), '#!/bin/sh\n', { mode: 0o755 })
    linkSync(join(other!, 'own-ssh'), join(bin!, 'own-ssh'))
    const tree = [repo.dir]
    expect(trustedOnHost(join(bin!, 'deploy-ssh'), tree)).toBe(false)
    expect(trustedOnHost(join(bin!, 'own-ssh'), tree)).toBe(true)
    // The folder is left out of git's PATH (its ssh is the tree's); by name, as on that PATH.
    expect(hostPath(`${bin}:/usr/bin`, tree)).toBe('/usr/bin')
    const saved = process.env.PATH
    process.env.PATH = `${other}:${saved}`
    try {
      expect(trustedProgramValue('own-ssh -o IdentitiesOnly=yes', tree)).toBe(true)
      expect(trustedProgramValue(`${bin}/deploy-ssh -o IdentitiesOnly=yes`, tree)).toBe(false)
    } finally {
      process.env.PATH = saved
    }
    if (process.getuid?.() !== 0) return
    // Nor one the tree's program is bind-mounted onto (a file, not a folder).
    const bound = join(other!, 'bound-ssh')
    writeFileSync(bound, '')
    execFileSync('mount', ['--bind', join(repo.dir, 'tools', 'deploy-ssh'), bound])
    try {
      expect(trustedOnHost(bound, tree)).toBe(false)
    } finally {
      execFileSync('umount', [bound])
    }
  })

  it('judge a bare name where the shell finds it, a link leading nowhere yet too, and every part of a value (attack round 23)', () => {
    const repo = createRepo({ files: { 'tools/keep': '' }, prefix: 'host-bare-name' })
    cleanups.push(() => repo.cleanup())
    // A setup step's link to a build output of the tree that validation makes later, before
    // the maintainer's own program of that name.
    const [linked, own] = ['linked-bin', 'own-bin'].map((name) => join(repo.root, name))
    for (const folder of [linked!, own!]) mkdirSync(folder)
    symlinkSync(join(repo.dir, 'tools', 'deploy-ssh'), join(linked!, 'deploy-ssh'))
    writeFileSync(join(own!, 'deploy-ssh'), '#!/bin/sh\n', { mode: 0o755 })
    const saved = process.env.PATH
    process.env.PATH = `${linked}:${own}:${saved}`
    try {
      const tree = [repo.dir]
      expect(trustedProgramValue('deploy-ssh -o IdentitiesOnly=yes', tree)).toBe(false)
      expect(trustedProgramValue('ssh -i ~/.ssh/deploy_key -o IdentitiesOnly=yes', tree)).toBe(true)
      for (const value of [
        'PATH=tools deploy-ssh',
        'LD_LIBRARY_PATH=/opt/lib ssh',
        'env PATH=/usr/bin:tools ssh',
        'env PATH=:/usr/bin ssh',
        'sh tools'
      ])
        expect(trustedProgramValue(value, tree), value).toBe(false)
    } finally {
      process.env.PATH = saved
    }
  })
})
