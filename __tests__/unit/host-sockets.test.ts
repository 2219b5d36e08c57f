/**
 * The host sockets a jail covers, worked out as the GitHub-hosted runner's user: another
 * process's socket in a folder that user cannot enter is closed to the command too, and must
 * not stop the run (it did: EACCES from lstat, an ENVIRONMENT_ERROR for every jail while one
 * existed).
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../support/action-runner.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

it.skipIf(skipWithout('sudo-unshare'))(
  "plans a jail as a user who cannot enter the folder of a host socket (root's, mode 0700)",
  async () => {
    const closed = mkdtempSync('/opt/patchsmith-closed-')
    cleanups.push(() => rmSync(closed, { recursive: true, force: true }))
    const socket = join(closed, 'daemon.sock')
    const listener = spawn(
      process.execPath,
      [
        '-e',
        `require('net').createServer(() => {}).listen(${JSON.stringify(socket)}, () => console.log('ready'))`
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    )
    cleanups.push(() => listener.kill())
    await new Promise((resolve) => listener.stdout.once('data', resolve))
    const plan = join(PROJECT_ROOT, 'src/sandbox/jail-plan.ts')
    const script = `import(${JSON.stringify(plan)}).then((m) => console.log('mounts', m.jailPlan({ workTree: '/var/tmp', gitDirs: [], hidden: [] }, []).mounts.length))`
    const out = await new Promise<string>((resolve) =>
      execFile(
        'runuser',
        ['-u', SUDO_USER, '--', process.execPath, '--import', 'tsx', '-e', script],
        { cwd: PROJECT_ROOT, timeout: 120_000 },
        (error, stdout, stderr) => resolve(`${stdout}${stderr}${error ? String(error) : ''}`)
      )
    )
    expect(out).toMatch(/^mounts \d+$/m)
  }
)
