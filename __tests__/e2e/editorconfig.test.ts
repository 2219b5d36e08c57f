import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { lastUserMessage, startModelServer } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { runCli, secretFlag } from '../support/action-runner.js'
import { runOnPlan, writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const EDITORCONFIG = [
  'root = true',
  '[*]',
  'indent_style = tab',
  'indent_size = 4',
  'trim_trailing_whitespace = true',
  'insert_final_newline = true',
  ''
].join('\n')

// Two kept lines end in blanks: the edit must not touch them.
const MATH = [
  'function clamp(value, low, high) {  ',
  '\tif (value < low) return low',
  '\treturn value',
  '}',
  '',
  'module.exports = { clamp } ',
  ''
].join('\n')

// What a model writes that ignores the file's tabs: spaces, and blanks at line ends.
const MATH_DIFF = [
  '--- a/src/math.js',
  '+++ b/src/math.js',
  '@@ -1,4 +1,7 @@',
  ' function clamp(value, low, high) {  ',
  ' \tif (value < low) return low',
  '+    if (value > high) {  ',
  '+        return high\t',
  '+    }',
  ' \treturn value',
  ' }',
  ''
].join('\n')

const NEW_DIFF = [
  '--- /dev/null',
  '+++ b/src/range.js',
  '@@ -0,0 +1,3 @@',
  '+function inRange(value, low, high) {   ',
  "+    return require('./math').clamp(value, low, high) === value",
  '+}',
  '\\ No newline at end of file',
  ''
].join('\n')

describe('.editorconfig applied to the lines an edit adds', () => {
  it.each(['in-process', 'dist/cli.js'])(
    '%s: commits tabs and no trailing blanks on added lines, a final newline on a new file, and leaves kept lines alone',
    async (entry) => {
      const repo = createRepo({
        prefix: 'editorconfig',
        files: {
          '.editorconfig': EDITORCONFIG,
          'src/math.js': MATH,
          'test.js':
            "const assert = require('assert')\nassert.strictEqual(require('./src/math').clamp(9, 0, 5), 5)\n"
        }
      })
      cleanups.push(() => repo.cleanup())
      const prompts: string[] = []
      const server = await startModelServer((request) => {
        const user = lastUserMessage(request)
        if (user.includes('Write a unified diff for src/math.js')) {
          prompts.push(request.body.messages.map((m: { content: string }) => m.content).join('\n'))
          return MATH_DIFF
        }
        if (user.includes('Write a unified diff for src/range.js')) return NEW_DIFF
        return 'fix(math): clamp values above the upper bound'
      })
      cleanups.push(() => server.close())
      const issue = {
        number: 7,
        title: 'clamp ignores the upper bound',
        body: 'clamp(9, 0, 5) is 9.'
      }
      const plan = {
        branch_name: 'fix/7-clamp',
        plan_steps: ['Return high when value is above it', 'Add inRange'],
        file_changes: [
          { path: 'src/math.js', operation: 'MODIFY', description: 'upper bound' },
          { path: 'src/range.js', operation: 'CREATE', description: 'inRange helper' }
        ],
        validation_commands: []
      }
      const run =
        entry === 'in-process'
          ? await runOnPlan(repo, {
              issue,
              plan,
              inputs: {
                'base-url': server.url,
                'api-key': 'sk-test-editorconfig',
                'validation-commands': 'node test.js'
              }
            })
          : await (() => {
              const files = writeInputs(repo, { 'issue.json': issue, 'plan.json': plan })
              return runCli([
                'run',
                '--repo',
                repo.dir,
                '--issue',
                files['issue.json']!,
                '--plan',
                files['plan.json']!,
                '--base-url',
                server.url,
                ...secretFlag('--api-key-file', 'sk-test-editorconfig'),
                '--validation-command',
                'node test.js'
              ])
            })()
      expect(run.exitCode, run.stderr + run.stdout).toBe(0)
      expect(prompts.join('\n')).toContain('indent with tabs')
      const sha = repo.gitOrigin('rev-parse', 'refs/heads/fix/7-clamp')
      // The blob byte for byte (the repo helper trims its output).
      const blob = (path: string) =>
        execFileSync('git', ['cat-file', 'blob', `${sha}:${path}`], {
          cwd: repo.origin,
          encoding: 'utf8'
        })
      expect(blob('src/math.js')).toBe(
        [
          'function clamp(value, low, high) {  ',
          '\tif (value < low) return low',
          '\tif (value > high) {',
          '\t\treturn high',
          '\t}',
          '\treturn value',
          '}',
          '',
          'module.exports = { clamp } ',
          ''
        ].join('\n')
      )
      expect(blob('src/range.js')).toBe(
        "function inRange(value, low, high) {\n\treturn require('./math').clamp(value, low, high) === value\n}\n"
      )
    }
  )
})
