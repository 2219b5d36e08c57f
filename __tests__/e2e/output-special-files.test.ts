/**
 * An output path that is not a regular file is not Patchsmith's to delete: `--output /dev/null`
 * (as root, deleting it breaks the whole machine) and a fifo are written to as a shell's `>` would,
 * a socket is refused before anything is asked. Only a link is ever taken away.
 *
 * As root the device is a private one (`mknod … c 1 3`, the same device as /dev/null), so that
 * the code before this change could not break the machine's /dev/null while the test shows it.
 */
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { entry, runProgram, secretFlag } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { runCliInProcess } from '../support/in-process.js'
import { replyByMatch, startModelServer, type ModelServer } from '../support/model-server.js'
import { typoCliArgs, typoRepo, typoReplies } from './scenario.js'

const cleanups = cleanupAfterEach()

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-special-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** dist/cli.js with its stdout a pipe (`patchsmith … | cat`), as in a shell; Node's own is a socket. */
function runCliIntoPipe(args: string[]) {
  const pipeline = 'set -o pipefail; "$@" | cat'
  return runProgram(['bash', '-c', pipeline, 'bash', process.execPath, entry('cli.js'), ...args])
}

async function typoRun(
  output: string,
  more: string[] = [],
  bundled = false,
  /** Prepares the work tree and names the path a PLACEHOLDER argument stands for. */
  prepare?: (dir: string) => string
) {
  const repo = typoRepo()
  cleanups.push(() => repo.cleanup())
  if (prepare) {
    const path = prepare(repo.dir)
    more = more.map((arg) => (arg === 'PLACEHOLDER' ? path : arg))
  }
  const server: ModelServer = await startModelServer(replyByMatch(typoReplies().replies))
  cleanups.push(() => server.close())
  const args = [
    ...typoCliArgs(repo.dir, server.url),
    ...secretFlag('--api-key-file', 'sk-special'),
    '--no-push',
    // The result on stdout too, where a refusal is read; not when stdout is the output.
    ...(bundled ? [] : ['--json']),
    '--output',
    output,
    ...more
  ]
  return { run: await (bundled ? runCliIntoPipe(args) : runCliInProcess(args)), server, repo }
}

function nullDevice(): string {
  if (process.getuid?.() !== 0) return '/dev/null'
  const path = join(scratch(), 'null')
  execFileSync('mknod', [path, 'c', '1', '3'])
  return path
}

it('writes the result to a character device and leaves the device in place', async () => {
  const device = nullDevice()
  const before = statSync(device)
  const { run } = await typoRun(device, [
    '--validation-command',
    'test -c /dev/null && echo devnull-ok-in-jail',
    '--sandbox',
    'required'
  ])
  expect(run.exitCode, run.stderr).toBe(0)
  const after = lstatSync(device)
  expect(after.isCharacterDevice()).toBe(true)
  expect([after.ino, after.rdev]).toEqual([before.ino, before.rdev])
  expect(run.stderr).toContain(`${device} (and on stdout)`)
}, 120_000)

it('writes the result to /dev/stdout (dist/cli.js, stdout a pipe) and leaves the link', async () => {
  const { run } = await typoRun('/dev/stdout', [], true)
  expect(run.exitCode, run.stderr).toBe(0)
  expect((JSON.parse(run.stdout) as CodeAgentOutput).success).toBe(true)
  expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true)
}, 120_000)

it('writes the result into a fifo its reader reads, and leaves the fifo in place', async () => {
  const fifo = join(scratch(), 'result.fifo')
  execFileSync('mkfifo', [fifo])
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] })
  let read = ''
  reader.stdout.on('data', (chunk: Buffer) => (read += chunk.toString('utf8')))
  const ended = once(reader, 'close')
  const { run } = await typoRun(fifo)
  await ended
  expect(run.exitCode, run.stderr).toBe(0)
  expect((JSON.parse(read) as CodeAgentOutput).success).toBe(true)
  expect(lstatSync(fifo).isFIFO()).toBe(true)
}, 120_000)

it('refuses a fifo nobody reads with INVALID_INPUT, instead of waiting or deleting it', async () => {
  const fifo = join(scratch(), 'result.fifo')
  execFileSync('mkfifo', [fifo])
  const { run } = await typoRun(fifo)
  expect(run.exitCode).toBe(1)
  const result = JSON.parse(run.stdout) as CodeAgentOutput
  expect(result.error).toMatchObject({
    code: 'INVALID_INPUT',
    details: { field: 'output-path', path: fifo, rule: 'not-a-file' }
  })
  expect(lstatSync(fifo).isFIFO()).toBe(true)
}, 120_000)

it('refuses a socket at the output path before any model call, and leaves it', async () => {
  const socket = join(scratch(), 'result.sock')
  const listener = createServer()
  listener.listen(socket)
  await once(listener, 'listening')
  cleanups.push(() => new Promise((done) => listener.close(done)))
  const { run, server } = await typoRun(socket)
  expect(run.exitCode).toBe(1)
  const result = JSON.parse(run.stdout) as CodeAgentOutput
  expect(result.error).toMatchObject({
    code: 'INVALID_INPUT',
    details: { field: 'output-path', rule: 'not-a-file' }
  })
  expect(result.error?.message).toContain('is a socket')
  expect(server.requests).toHaveLength(0)
  expect(lstatSync(socket).isSocket()).toBe(true)
}, 120_000)

it('refuses a log-dir that is a device, and leaves it', async () => {
  const device = nullDevice()
  const output = join(scratch(), 'result.json')
  const { run, server } = await typoRun(output, ['--log-dir', device])
  expect(run.exitCode).toBe(1)
  const result = JSON.parse(run.stdout) as CodeAgentOutput
  expect(result.error).toMatchObject({
    code: 'INVALID_INPUT',
    details: { field: 'log-dir', rule: 'not-a-file' }
  })
  expect(server.requests).toHaveLength(0)
  expect(lstatSync(device).isCharacterDevice()).toBe(true)
}, 120_000)

it('writes the pull-request body only where its folder was: never through a link validation made there', async () => {
  const outside = scratch()
  // The body goes to an ignored folder of the work tree, which does not exist yet: validation
  // makes it, as a link to a folder of the host.
  const { run, repo } = await typoRun(
    join(scratch(), 'result.json'),
    [
      '--pull-request-body',
      'PLACEHOLDER',
      '--validation-command',
      `npm run lint && mkdir -p out && ln -sfn ${outside} out/body`,
      '--sandbox',
      'required'
    ],
    false,
    (dir) => {
      writeFileSync(join(dir, '.git/info/exclude'), 'out/\n')
      return join(dir, 'out/body/pr.md')
    }
  )
  expect(run.exitCode, run.stderr).toBe(0)
  expect(readdirSync(outside)).toEqual([])
  const result = JSON.parse(run.stdout) as CodeAgentOutput
  expect(readFileSync(join(repo.dir, 'out/body/pr.md'), 'utf8')).toBe(result.pull_request?.body)
}, 120_000)

it('refuses a folder at the pull-request body path before anything is asked', async () => {
  const folder = scratch()
  const { run, server } = await typoRun(join(scratch(), 'result.json'), [
    '--pull-request-body',
    folder
  ])
  expect(run.exitCode).toBe(1)
  expect(run.stderr).toMatch(/pull-request-body .* is a folder/)
  expect(server.requests).toHaveLength(0)
  expect(lstatSync(folder).isDirectory()).toBe(true)
}, 120_000)
