/**
 * The GitHub-hosted runner's path, driven as Patchsmith drives it: the runner's user (SUDO_USER,
 * with passwordless sudo) asks sudo for the mounts of `layout` and runs a command in that jail.
 * The caller makes the work tree the user's own first.
 */
import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  gitFileCovers,
  jailPlan,
  unshareSpec,
  type SandboxLayout
} from '../../src/sandbox/index.js'
import { SUDO_USER } from './sandbox-needs.js'

export interface SudoJail {
  run(command: string, network?: 'open' | 'closed'): Promise<string>
  close(): void
}

export function sudoJail(
  layout: SandboxLayout,
  env: Record<string, string>,
  maxTasks: number
): SudoJail {
  const [uid, gid] = ['-u', '-g'].map((flag) =>
    Number(execFileSync('id', [flag, SUDO_USER], { encoding: 'utf8' }).trim())
  )
  const mine = mkdtempSync('/tmp/patchsmith-sudo-jail-')
  mkdirSync(join(mine, 'stash'))
  mkdirSync(join(mine, 'git'))
  const covers = gitFileCovers(layout.gitDirs, join(mine, 'git'), '/usr/bin/git')
  execFileSync('chmod', ['-R', 'a+rX', mine])
  const programs = Object.fromEntries(
    ['unshare', 'sudo', 'setpriv', 'prlimit', 'mount', 'ip', 'runuser'].map((name) => [
      name,
      execFileSync('sh', ['-c', `PATH=$PATH:/usr/sbin:/sbin command -v ${name}`], {
        encoding: 'utf8'
      }).trim()
    ])
  )
  const workTree = layout.workTree
  return {
    run(command, network) {
      const plan = jailPlan(layout, covers, { network, maxTasks })
      const caller = { uid: uid!, gid: gid!, tasks: 0 }
      const stash = join(mine, 'stash')
      const spec = unshareSpec(programs, plan, stash, command, workTree, env, true, caller)
      // Asynchronously: the test's own servers must keep answering meanwhile.
      const args = ['-u', SUDO_USER, '--', spec.file, ...spec.args]
      const options = { cwd: workTree, env: spec.env, encoding: 'utf8' as const, timeout: 60_000 }
      return new Promise<string>((resolve) =>
        execFile(programs.runuser!, args, options, (error, stdout, stderr) =>
          resolve(`${stdout}${stderr}${error && !stdout ? String(error) : ''}`)
        )
      )
    },
    close: () => rmSync(mine, { recursive: true, force: true })
  }
}
