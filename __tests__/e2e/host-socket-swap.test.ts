/**
 * Through dist/index.js: a host daemon listens in the checkout (`sock/agent.sock`, as
 * `ssh-agent -a` there would), and one repository script hides it from the next jail's search
 * while the next script tries to reach it: a dead socket left at its listed path, its folder
 * buried past PATH_MAX, a folder closed over it as the runner's user. Found by the session-18
 * attack rounds; each got through before.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap, type FruitRun } from './fruit.js'

const cleanups = cleanupAfterEach()

/**
 * A host daemon at `<checkout>/sock/agent.sock`, then the run through dist with `first` and
 * `second` as its setup commands (repository scripts). Returns the run and how often the daemon
 * was reached.
 */
async function afterTwoCommands(
  first: string,
  second: string,
  backend: string,
  user?: string
): Promise<{ run: FruitRun; reached: number }> {
  const repo = fruitRepo({
    'first.js': first,
    'second.js': second,
    '.gitignore': 'sock/\nc/\nsock2/\n'
  })
  // rm(1) also removes folders past PATH_MAX, which a path-based removal cannot.
  cleanups.push(() => execFileSync('rm', ['-rf', repo.root]))
  mkdirSync(join(repo.dir, 'sock'))
  let reached = 0
  const server = createServer((socket) => {
    reached++
    socket.end('SECRET-FROM-HOST\n')
  })
  await new Promise<void>((resolve) => server.listen(join(repo.dir, 'sock/agent.sock'), resolve))
  cleanups.push(() => server.close(() => undefined))
  const run = await runOnFruit(
    repo,
    fruitReplies([swap('apple', 'kiwi')]),
    {
      'setup-commands': 'node first.js\nnode second.js',
      'validation-commands': 'sh check.sh',
      sandbox: 'required'
    },
    { PATCHSMITH_SANDBOX_BACKENDS: backend },
    { dist: true, user }
  )
  expect(run.stdout).not.toContain('REACHED')
  return { run, reached }
}

const PLANT = `const fs = require('fs'); if (fs.existsSync('sock')) { fs.renameSync('sock', 'sock2'); fs.mkdirSync('sock'); require('net').createServer().listen('sock/agent.sock', () => process.exit(0)) }`
const PROBE = `const c = require('net').connect('sock2/agent.sock'); c.on('data', (d) => console.log('REACHED ' + d)); c.on('error', () => {})`

it.each((['bubblewrap', 'unshare'] as const).filter((name) => !skipWithout(name)))(
  'setup commands that swap a dead socket in for a host socket in the checkout reach nothing (%s, node dist/index.js)',
  async (backend) => {
    const { run, reached } = await afterTwoCommands(PLANT, PROBE, backend)
    expect(run.exitCode, run.stdout).toBe(0)
    expect(reached).toBe(0)
  }
)

// A folder a command can make deeper than PATH_MAX, a short rename at a time: no mount can name a
// socket there, yet a command reaches it folder by folder (unshare skipped its cover).
const BURY = `const fs = require('fs'); if (fs.existsSync('sock')) { fs.mkdirSync('c'); fs.renameSync('sock', 'c/sock'); const n = 'L' + 'x'.repeat(200); for (let i = 0; i < 25; i++) { fs.mkdirSync('t'); fs.renameSync('c', 't/' + n); fs.renameSync('t', 'c') } }`
const DIG = `const fs = require('fs'); if (fs.existsSync('c')) { process.chdir('c'); for (;;) { const n = fs.readdirSync('.'); if (n.includes('sock')) { process.chdir('sock'); break } process.chdir(n.find((x) => x.startsWith('L'))) } const c = require('net').connect('agent.sock'); c.on('data', (d) => console.log('REACHED ' + d)); c.on('error', () => {}) }`

// Just short of PATH_MAX (4 092 bytes of path): bubblewrap names each mount under its own new
// root, 8 bytes longer, so it cannot cover the socket there and would not start.
const NEAR = `const fs = require('fs'); if (fs.existsSync('sock')) { fs.mkdirSync('c'); fs.renameSync('sock', 'c/sock'); const left = 4092 - (process.cwd().length + '/c/'.length + 'sock/agent.sock'.length); const k = Math.ceil(left / 201); for (let i = 0; i < k; i++) { const n = 'L' + 'x'.repeat(Math.floor(left / k) + (i < left % k ? 1 : 0) - 2); fs.mkdirSync('t'); fs.renameSync('c', 't/' + n); fs.renameSync('t', 'c') } }`
const BURIED = { 'past PATH_MAX': BURY, 'just short of PATH_MAX': NEAR }

it.each(
  (['bubblewrap', 'unshare'] as const)
    .filter((name) => !skipWithout(name))
    .flatMap((backend) => Object.entries(BURIED).map(([depth, script]) => [depth, backend, script]))
)(
  'a host socket a command buried %s stops the jail as ENVIRONMENT_ERROR, reached by nothing (%s, node dist/index.js)',
  async (_depth, backend, script) => {
    const { run, reached } = await afterTwoCommands(script!, DIG, backend!)
    expect(run.result.error?.code, run.stdout).toBe('ENVIRONMENT_ERROR')
    expect(run.stdout).toMatch(/too long for the jail to cover \(\d+ bytes; at most 4087;/)
    expect(reached).toBe(0)
  }
)

// As the runner's user (not root), find cannot enter a folder a command closed, and the command,
// the same user, can open it again: in place, under a parent it can no longer search (its owner
// cannot be told), under a name find's error line does not print as it is (a newline).
const CLOSE = {
  'in place': `require('fs').chmodSync('sock', 0)`,
  'under a closed parent': `const fs = require('fs'); fs.mkdirSync('c'); fs.renameSync('sock', 'c/sock'); fs.chmodSync('c/sock', 0); fs.chmodSync('c', 0o600)`,
  'named with a newline': `const fs = require('fs'); fs.mkdirSync('c'); fs.renameSync('sock', 'c/\\nq'); fs.chmodSync('c/\\nq', 0)`,
  // find names the socket from the folder's entries; no one can look at it there.
  'readable, not searchable': `require('fs').chmodSync('sock', 0o600)`
}
const OPEN = `const fs = require('fs'); const net = require('net'); const reach = (p) => net.connect(p).on('data', (d) => console.log('REACHED ' + d)).on('error', () => {}); if (fs.existsSync('c')) { fs.chmodSync('c', 0o755); for (const name of fs.readdirSync('c')) { fs.chmodSync('c/' + name, 0o755); reach('c/' + name + '/agent.sock') } } else { fs.chmodSync('sock', 0o755); reach('sock/agent.sock') }`

// All need the runner's user (patchsmith-sudo), as the sudo-unshare backend does.
const AS_USER = (
  [
    ['in place', 'bubblewrap'],
    ['in place', 'sudo-unshare'],
    ['under a closed parent', 'bubblewrap'],
    ['named with a newline', 'bubblewrap'],
    ['readable, not searchable', 'bubblewrap'],
    ['readable, not searchable', 'sudo-unshare']
  ] as const
).filter(([, name]) => !skipWithout(name) && !skipWithout('sudo-unshare'))

it.each(AS_USER)(
  'a folder a command closed over a host socket (%s) stops the jail as ENVIRONMENT_ERROR, reached by nothing (%s as the runner user, node dist/index.js)',
  async (how, backend) => {
    const { run, reached } = await afterTwoCommands(CLOSE[how], OPEN, backend, SUDO_USER)
    expect(run.result.error?.code, run.stdout).toBe('ENVIRONMENT_ERROR')
    expect(run.stdout).toMatch(/cannot be (read|searched) by this user/)
    expect(reached).toBe(0)
  }
)
