import { describe, expect, it } from 'vitest'
import { runAction } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { startModelServer, type RecordedRequest } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

/**
 * Each edit format end to end: the action asks in that format and commits the edit. The udiff
 * case and the syntax gate (its WASM beside the bundle) run `node dist/index.js`; the others run
 * in-process (src/main.ts's run()): the bundle copies every registered format's template alike.
 */

const cleanups = cleanupAfterEach()

const BEFORE = [
  'export function total(items) {',
  '  let sum = 0',
  '  for (const item of items) {',
  '    sum += item.price',
  '  }',
  '  return sum',
  '}',
  ''
].join('\n')
const AFTER = BEFORE.replace('    sum += item.price', '    sum += item.price * item.quantity')

const REPLIES = {
  udiff: [
    'Here is the fix:',
    '```diff',
    '--- a/src/total.js',
    '+++ b/src/total.js',
    '@@ -3,3 +3,3 @@',
    '   for (const item of items) {',
    '-    sum += item.price',
    '+    sum += item.price * item.quantity',
    '   }',
    '```'
  ].join('\n'),
  'search-replace': [
    'src/total.js',
    '<<<<<<< SEARCH',
    '    sum += item.price',
    '=======',
    '    sum += item.price * item.quantity',
    '>>>>>>> REPLACE'
  ].join('\n'),
  'json-edits': JSON.stringify({
    path: 'src/total.js',
    edits: [
      {
        range: { start: 4, end: 4 },
        oldText: '    sum += item.price',
        newText: '    sum += item.price * item.quantity'
      }
    ]
  }),
  'whole-file': `^^^src/total.js\n${AFTER}^^^end\n`
} as const

/** Words only the draft prompt of each format contains. */
const PROMPT_MARK = {
  udiff: 'Write a unified diff for src/total.js',
  'search-replace': 'the edit format is SEARCH/REPLACE blocks',
  'json-edits': 'the edit format is JSON line edits',
  'whole-file': 'the edit format is the whole new file'
} as const

const draftText = (request: RecordedRequest) => JSON.stringify(request.body?.messages ?? [])

/** The totals issue and plan in the given edit format, in-process or through the bundle. */
function runTotal(
  repo: TestRepo,
  baseUrl: string,
  format: string,
  { issue, validation, bundled }: { issue: number; validation: string; bundled: boolean }
) {
  const files = writeInputs(repo, {
    'issue.json': {
      number: issue,
      title: 'Totals ignore quantities',
      body: 'Two of a thing cost twice.'
    },
    'plan.json': {
      branch_name: `fix/${issue}-total-${format}`,
      plan_steps: ['Multiply each price by its quantity'],
      file_changes: [{ path: 'src/total.js', operation: 'MODIFY', line_range: [4, 4] }],
      validation_commands: [validation]
    }
  })
  return (bundled ? runAction : runActionInProcess)({
    workspace: repo.dir,
    inputs: {
      issue: files['issue.json']!,
      'fix-plan': files['plan.json']!,
      'base-url': baseUrl,
      'api-key': 'sk-test-formats',
      'edit-format': format,
      'allow-plan-commands': 'true'
    }
  })
}

describe('edit formats end to end', () => {
  it.each(Object.keys(REPLIES) as (keyof typeof REPLIES)[])(
    'commits an edit written as %s',
    async (format) => {
      const repo = createRepo({ files: { 'src/total.js': BEFORE }, prefix: `format-${format}` })
      cleanups.push(() => repo.cleanup())
      const baseSha = repo.git('rev-parse', 'HEAD')
      const server = await startModelServer((request) =>
        draftText(request).includes('Current content of src/total.js')
          ? REPLIES[format]
          : 'fix(total): multiply each price by its quantity'
      )
      cleanups.push(() => server.close())
      const run = await runTotal(repo, server.url, format, {
        issue: 31,
        validation: "grep -q 'item.price \\* item.quantity' src/total.js",
        bundled: format === 'udiff'
      })
      expect(run.exitCode, run.stdout + run.stderr).toBe(0)
      const draft = server.requests.find((request) =>
        draftText(request).includes('Current content of src/total.js')
      )
      expect(draftText(draft!)).toContain(PROMPT_MARK[format])
      const sha = run.outputs.sha!
      // (the helper trims the output's trailing newline; the diff below shows it was kept)
      expect(repo.gitOrigin('show', `${sha}:src/total.js`)).toBe(AFTER.trimEnd())
      expect(repo.gitOrigin('diff', '--name-only', baseSha, sha)).toBe('src/total.js')
      const [commit] = JSON.parse(run.outputs.commits!)
      expect(commit.diff).toContain('+    sum += item.price * item.quantity')
      expect(commit.diff).toContain('-    sum += item.price')
      expect(commit.diff).not.toContain('No newline at end of file')
    }
  )
})

describe('the syntax gate through node dist/index.js', () => {
  it('refuses an edit that breaks the file with INVALID_DIFF naming the line, before validation, and the retry lands', async () => {
    const repo = createRepo({ files: { 'src/total.js': BEFORE }, prefix: 'syntax-gate' })
    cleanups.push(() => repo.cleanup())
    // The first reply drops a closing brace: it applies cleanly, and JavaScript no longer parses.
    const broken = REPLIES.udiff
      .replace('   }\n```', '```')
      .replace('@@ -3,3 +3,3 @@', '@@ -3,3 +3,2 @@')
    const unclosed = broken.replace(
      '   for (const item of items) {\n-    sum += item.price\n+    sum += item.price * item.quantity',
      '   for (const item of items) {\n-    sum += item.price\n-  }\n+    sum += item.price * item.quantity'
    )
    let drafts = 0
    const server = await startModelServer((request) => {
      if (!draftText(request).includes('Current content of src/total.js'))
        return 'fix(total): multiply each price by its quantity'
      drafts++
      return drafts === 1 ? unclosed : REPLIES.udiff
    })
    cleanups.push(() => server.close())
    const run = await runTotal(repo, server.url, 'udiff', {
      issue: 32,
      validation: 'node --check src/total.js',
      bundled: true
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(drafts).toBe(2)
    const retry = draftText(
      server.requests.filter((request) =>
        draftText(request).includes('Current content of src/total.js')
      )[1]!
    )
    // The retry hears what the gate found, by line, and nothing from a validation run.
    expect(retry).toMatch(/unparseable \(javascript\)[^"]*line \d+/)
    expect(retry).not.toContain('node --check')
    expect(repo.gitOrigin('show', `${run.outputs.sha!}:src/total.js`)).toBe(AFTER.trimEnd())
  })
})

describe('replies cut at the output limit (finish_reason: length)', () => {
  it('keeps a diff cut in its trailing context, and refuses one cut among its added lines', async () => {
    // The bare diff, as a model that stopped at its limit leaves it: no closing fence.
    const whole = REPLIES.udiff.slice(
      REPLIES.udiff.indexOf('--- a/'),
      REPLIES.udiff.lastIndexOf('\n```')
    )
    // Cut in the middle of a trailing context line ("  return sum").
    const cutInContext = { content: `${whole}\n   return s`, finishReason: 'length' }
    for (const [name, first, drafts] of [
      ['cut in context', cutInContext, 1],
      [
        'cut among added lines',
        {
          content: whole.replace(/ \* item\.quantity\n {3}\}$/, ' * item.qu'),
          finishReason: 'length'
        },
        2
      ]
    ] as const) {
      const repo = createRepo({ files: { 'src/total.js': BEFORE }, prefix: 'cut-off' })
      cleanups.push(() => repo.cleanup())
      let draftsSeen = 0
      const server = await startModelServer((request) => {
        if (!draftText(request).includes('Current content of src/total.js'))
          return 'fix(total): multiply each price by its quantity'
        draftsSeen++
        return draftsSeen === 1 ? first : REPLIES.udiff
      })
      cleanups.push(() => server.close())
      const run = await runTotal(repo, server.url, 'udiff', {
        issue: 33,
        validation: "grep -q 'item.price \\* item.quantity' src/total.js",
        bundled: false
      })
      expect(run.exitCode, `${name}: ${run.stdout}${run.stderr}`).toBe(0)
      expect(draftsSeen, name).toBe(drafts)
      expect(run.stdout, name).toContain("was cut off at the model's output limit")
      expect(repo.gitOrigin('show', `${run.outputs.sha!}:src/total.js`), name).toBe(AFTER.trimEnd())
      if (drafts === 2) {
        const retry = draftText(
          server.requests.filter((r) =>
            draftText(r).includes('Current content of src/total.js')
          )[1]!
        )
        expect(retry).toContain('cut off in the middle of hunk 1')
      }
    }
  })
})
