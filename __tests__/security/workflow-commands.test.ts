/**
 * Untrusted text (a model reply, validation output) never runs a workflow command on the
 * runner, whatever the runner trims before it looks for `::` (U+0085 and the rest of .NET's
 * whitespace) and in the older `##[command]` form too. The log is read back as the runner reads
 * it (support/runner-commands.ts).
 */
import { describe, expect, it } from 'vitest'
import { actionsIo } from '../../src/report/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { runnerCommands } from '../support/runner-commands.js'
import { fruitRepo, fruitReplies, swap } from '../e2e/fruit.js'
import { writeInputs } from '../e2e/scenario.js'
import { secretFlag } from '../support/action-runner.js'
import { runActionInProcess, runCliInProcess } from '../support/in-process.js'
import { lastUserMessage, startModelServer, type RecordedRequest } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

// Every character .NET's Char.IsWhiteSpace takes as whitespace, ASCII ones but the line breaks.
const RUNNER_TRIMS = [
  '\t',
  '\v',
  '\f',
  ' ',
  '\u0085',
  '\u00a0',
  '\u1680',
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000'
]

/** Hostile lines: a command after each trimmed character, and the older form mid-line. */
function hostileLines(marker: string): string[] {
  return [
    ...RUNNER_TRIMS.map(
      (char) => `${char}::set-output name=x::${marker}-${char.charCodeAt(0).toString(16)}`
    ),
    `\u0085\u0085 ::add-mask::${marker}-mask`,
    `##[set-output name=x]${marker}-older`,
    `All tests passed ##[set-output name=commits][${marker}-midline]`
  ]
}

const hostileCommands = (log: string, marker: string) =>
  runnerCommands(log).filter((command) => command.line.includes(marker))

function capturedStdout(action: () => void): string {
  let out = ''
  const write = process.stdout.write.bind(process.stdout)
  process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof write
  try {
    action()
  } finally {
    process.stdout.write = write
  }
  return out
}

describe('a log line from outside', () => {
  it.each(hostileLines('pwn').map((line) => [JSON.stringify(line), line]))(
    'runs no command: %s',
    (_name, line) => {
      const log = capturedStdout(() => actionsIo.info(`Root cause: x\n${line}`))
      expect(hostileCommands(log, 'pwn')).toEqual([])
      expect(log).toContain(line)
    }
  )
})

const CONFIG_JS =
  'function parseConfig(text) {\n  return { port: 3000 }\n}\nmodule.exports = { parseConfig }\n'
const FIX =
  '--- a/src/config.js\n+++ b/src/config.js\n@@ -1,3 +1,3 @@\n function parseConfig(text) {\n-  return { port: 3000 }\n+  return { port: Number(text.split("=")[1]) }\n }\n'

/** A plan-less run: the model's root cause is printed on the log. */
function planlessModel(rootCause: string) {
  return (request: RecordedRequest) => {
    if (request.body.response_format?.json_schema?.name === 'fix_plan')
      return JSON.stringify({
        root_cause: rootCause,
        plan_steps: ['Use the PORT value'],
        file_changes: [{ path: 'src/config.js', operation: 'MODIFY', description: 'Use PORT' }]
      })
    if (lastUserMessage(request).includes('Write a unified diff for src/config.js')) return FIX
    return 'fix(config): use the PORT value that parseConfig reads'
  }
}

// Only what a check for `\s*::` at a line's start misses: U+0085 and the older form.
const ROOT_CAUSE =
  'PORT is ignored.\n\u0085::set-output name=x::pwn-model-85\nsee ##[set-output name=x]pwn-model-older'

describe('through the action and the command line', () => {
  it('the action runs no command from the root cause a model replied', async () => {
    const repo = createRepo({ prefix: 'commands', files: { 'src/config.js': CONFIG_JS } })
    cleanups.push(() => repo.cleanup())
    const server = await startModelServer(planlessModel(ROOT_CAUSE))
    cleanups.push(() => server.close())
    const inputs = writeInputs(repo, {
      'issue.json': { number: 12, title: 'parseConfig ignores PORT', body: 'Fix `parseConfig`.' }
    })
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        issue: inputs['issue.json']!,
        'base-url': server.url,
        'api-key': 'sk-test-commands',
        'output-path': `${repo.root}/result.json`,
        'validation-commands': 'node -e "require(\'./src/config.js\')"'
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.stdout).toContain('pwn-model-older')
    expect(hostileCommands(run.stdout, 'pwn')).toEqual([])
  }, 120_000)

  it('the command line runs no command from validation output, on stderr or in its JSON', async () => {
    const repo = fruitRepo({ 'hostile.txt': `${hostileLines('pwn-validation').join('\n')}\n` })
    cleanups.push(() => repo.cleanup())
    const server = await startModelServer(fruitReplies([swap('apple', 'banana')]))
    cleanups.push(() => server.close())
    const inputs = writeInputs(repo, {
      'issue.json': { number: 3, title: 'Serve the right fruit', body: 'We want a kiwi.' },
      'plan.json': {
        branch_name: 'fix/3-fruit',
        plan_steps: ['Change the fruit'],
        file_changes: [{ path: 'fruit.txt', operation: 'MODIFY' }],
        validation_commands: []
      }
    })
    const run = await runCliInProcess([
      'run',
      '--repo',
      repo.dir,
      '--issue',
      inputs['issue.json']!,
      '--plan',
      inputs['plan.json']!,
      '--base-url',
      server.url,
      '--max-attempts',
      '1',
      '--json',
      '--validation-command',
      'cat hostile.txt; cat hostile.txt >&2; sh check.sh',
      ...secretFlag('--api-key-file', 'sk-test-commands')
    ])
    expect(run.exitCode).toBe(1)
    const log = `${run.stderr}\n${run.stdout}`
    expect(log).toContain('pwn-validation-older')
    expect(hostileCommands(log, 'pwn')).toEqual([])
    expect(JSON.parse(run.stdout)).toMatchObject({ success: false })
  }, 120_000)
})
