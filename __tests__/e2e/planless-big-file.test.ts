import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runActionInProcess } from '../support/in-process.js'
import { lastUserMessage, startModelServer, type RecordedRequest } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const PARSE_CONFIG = [
  'function parseConfig(text) {',
  '  const config = { port: 3000 }',
  "  for (const line of text.split('\\n')) {",
  "    const [key, value] = line.split('=')",
  "    if (key === 'PORT') config.port = 3000",
  '  }',
  '  return config',
  '}'
]

/**
 * A 5 000-line module: imports, 1 200 small helpers, parseConfig at line 3 004, and a decoy
 * function far above it holding the very lines the fix changes.
 */
function bigModule(): { text: string; at: number; decoy: number } {
  const lines = ["const fs = require('fs')", "const path = require('path')"]
  const helper = (i: number) => [`function helper${i}(x) {`, `  return x + ${i}`, '}', '']
  for (let i = 0; lines.length < 1_000; i++) lines.push(...helper(i))
  const decoy = lines.length + 1
  lines.push(...PARSE_CONFIG.map((line) => line.replace('parseConfig', 'parseDefaults')), '')
  for (let i = 1_000; lines.length < 3_001; i++) lines.push(...helper(i))
  const at = lines.length + 1
  // Only the real one calls the decoy: the outline names what the window's code uses.
  lines.push(PARSE_CONFIG[0]!, "  const defaults = parseDefaults('')", ...PARSE_CONFIG.slice(1), '')
  for (let i = 3_000; lines.length < 4_995; i++) lines.push(...helper(i))
  while (lines.length < 4_999) lines.push('')
  lines.push('module.exports = { parseConfig, parseDefaults, fs, path }')
  return { text: lines.join('\n') + '\n', at, decoy }
}

describe('plan-less issue mode on a large file', () => {
  it('plans a line range, drafts a 5 000-line file as a window within the default budget and lands the edit', async () => {
    const { text, at, decoy } = bigModule()
    expect(text.split('\n')).toHaveLength(5_001)
    const repo = createRepo({
      prefix: 'planless-big',
      files: {
        'src/config.js': text,
        'test.js':
          "const assert = require('assert')\nconst { parseConfig, parseDefaults } = require('./src/config')\n" +
          "assert.strictEqual(parseConfig('PORT=8080').port, 8080)\n" +
          "assert.strictEqual(parseDefaults('PORT=8080').port, 3000)\n"
      }
    })
    cleanups.push(() => repo.cleanup())
    const baseSha = repo.git('rev-parse', 'HEAD')
    const fixed = at + 5
    // What a model writes from the window it was shown: the numbers and lines of the window.
    const diff =
      `--- a/src/config.js\n+++ b/src/config.js\n@@ -${fixed - 1},3 +${fixed - 1},3 @@\n` +
      "     const [key, value] = line.split('=')\n" +
      "-    if (key === 'PORT') config.port = 3000\n" +
      "+    if (key === 'PORT') config.port = Number(value)\n" +
      '   }\n'
    const drafts: string[] = []
    const server = await startModelServer((request: RecordedRequest) => {
      const user = lastUserMessage(request)
      if (request.body.response_format?.json_schema?.name === 'fix_plan')
        return JSON.stringify({
          root_cause: 'parseConfig assigns the constant 3000 instead of the PORT value.',
          plan_steps: ['Assign Number(value) to config.port for the PORT key'],
          file_changes: [
            { path: 'src/config.js', operation: 'MODIFY', description: 'Use the PORT value' }
          ]
        })
      if (user.includes('Write a unified diff for src/config.js')) {
        drafts.push(user)
        // Only a window and the outline: the lines far from the range are not in the prompt.
        return user.includes(`${fixed} |     if (key === 'PORT') config.port = 3000`) &&
          !user.includes('function helper10(x)')
          ? diff
          : 'I cannot see the code.'
      }
      return 'fix(config): use the PORT value that parseConfig reads'
    })
    cleanups.push(() => server.close())
    const inputs = writeInputs(repo, {
      'issue.json': {
        number: 31,
        title: 'parseConfig ignores PORT',
        body: 'Calling `parseConfig("PORT=8080")` returns port 3000.'
      }
    })
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        issue: inputs['issue.json']!,
        'base-url': server.url,
        'api-key': 'sk-test-big',
        'validation-commands': 'node test.js',
        'output-path': `${repo.root}/result.json`
      }
    })
    expect(run.exitCode, run.stderr + run.stdout).toBe(0)
    expect(drafts).toHaveLength(1)
    const draft = drafts[0]!
    expect(draft).toContain(`Lines of interest: ${at}-${at + 8}`)
    expect(draft).toMatch(/src\/config\.js has 5000 lines; only lines \d+-\d+ are shown/)
    // The outline: the imports, and the far definition the window's code calls, numbered.
    expect(draft).toMatch(/ 1: const fs = require\('fs'\)/)
    expect(draft).toContain(` ${decoy}: function parseDefaults(text) {`)

    const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
    const context = (result.metrics as { draft_context?: Array<Record<string, unknown>> })
      .draft_context
    expect(context).toHaveLength(1)
    expect(context![0]!.context).toMatch(/^lines \d+-\d+ of 5000$/)
    const tokens = (context![0]!.tokens ?? context![0]!.tokens_at_most) as number
    expect(tokens).toBeLessThanOrEqual(5_000)

    const sha = run.outputs.sha!
    expect(repo.gitOrigin('diff', '--name-only', baseSha, sha)).toBe('src/config.js')
    const after = repo.gitOrigin('show', `${sha}:src/config.js`).split('\n')
    const before = text.split('\n')
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [i + 1]))
    expect(changed).toEqual([fixed])
    expect(after[fixed - 1]).toBe("    if (key === 'PORT') config.port = Number(value)")
  })
})
