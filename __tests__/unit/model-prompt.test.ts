import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { largeSourceFile, TYPO_ISSUE } from '../../bench/lib/fixtures.js'
import { PatchsmithError, type FileChange } from '../../src/contract/index.js'
import {
  DraftPrompter,
  RunBudget,
  countMessageTokens,
  fileStyle,
  outlineOf,
  styleForFile
} from '../../src/model/index.js'
import { issueFocus } from '../../src/planning/index.js'
import { PROJECT_ROOT } from '../support/action-runner.js'
import { sharedPrefix } from '../support/prompt-cache.js'

const temps: string[] = []
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempRepo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-prompt-'))
  temps.push(root)
  const repo = join(root, 'repo')
  mkdirSync(repo)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return repo
}

const LARGE = largeSourceFile(3_000)

function request(change: FileChange, content: string | null, body = TYPO_ISSUE.body) {
  return {
    format: 'udiff' as const,
    issue: { ...TYPO_ISSUE, body },
    change,
    planSteps: ['Fix it'],
    content
  }
}

describe('DraftPrompter', () => {
  it('sends a small file whole, under the budget without loading the tokenizer', async () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'examples/typo-fix/repo/README.md'), 'utf8')
    const prompter = new DraftPrompter({ repoDir: tempRepo({}), maxTokens: 5_000 })
    const messages = await prompter.messages(
      request({ path: 'README.md', operation: 'MODIFY', line_range: [15, 15] }, readme)
    )
    expect(messages[1]!.content).toContain('Run teh following command:')
    expect(prompter.records[0]).toMatchObject({ path: 'README.md', context: 'file' })
    expect(prompter.records[0]!.tokens).toBeUndefined()
    expect(prompter.records[0]!.tokens_at_most).toBeLessThan(5_000)
    expect(await countMessageTokens(messages)).toBeLessThan(1_000)
  })

  it('sends a numbered window and the outline for a 3 000-line file with a 20-line range', async () => {
    expect(LARGE.split('\n').length - 1).toBe(3_000)
    const budget = new RunBudget({ maxAttempts: 4, maxTotalTokens: 0, timeLimitMs: 0 })
    budget.beforeAttempt(1)
    const prompter = new DraftPrompter({ repoDir: tempRepo({}), maxTokens: 5_000, budget })
    const messages = await prompter.messages(
      request({ path: 'src/handlers.ts', operation: 'MODIFY', line_range: [1_501, 1_520] }, LARGE)
    )
    const user = messages[1]!.content
    const tokens = await countMessageTokens(messages)
    expect(tokens).toBeLessThanOrEqual(5_000)
    expect(prompter.records[0]).toMatchObject({ attempt: 1, tokens })
    expect(prompter.records[0]!.context).toMatch(/^lines \d+-\d+ of 3000$/)
    expect(user).toContain('src/handlers.ts has 3000 lines')
    expect(user).toContain('1501 | export function handler150(input: Request): Response {')
    expect(user).toContain('1520 | ')
    expect(user).toContain('never copy them')
    // The outline names declarations outside the window, with their line numbers, nearest first.
    const [, from, to] = /^lines (\d+)-(\d+)/.exec(prompter.records[0]!.context)!.map(Number)
    expect(user).toContain(`${from! - 10}: export function handler${(from! - 11) / 10}(`)
    expect(user).toContain(`${to! + 1}: export function handler${to! / 10}(`)
    expect(user).not.toMatch(/^\s+1: export function handler0\(/m) // far away: left out
  })

  it('refuses a large file without a line_range as TOKEN_BUDGET_EXCEEDED, with the numbers', async () => {
    const prompter = new DraftPrompter({ repoDir: tempRepo({}), maxTokens: 5_000 })
    const error = await prompter
      .messages(request({ path: 'src/handlers.ts', operation: 'MODIFY' }, LARGE))
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PatchsmithError)
    const failure = error as PatchsmithError
    expect(failure.code).toBe('TOKEN_BUDGET_EXCEEDED')
    expect(failure.message).toMatch(/needs \d+ tokens even at its smallest/)
    expect(failure.message).toContain('max-tokens-per-draft (5000)')
    expect(failure.message).toContain('line_range')
    expect(failure.details).toMatchObject({
      path: 'src/handlers.ts',
      max_tokens_per_draft: 5_000,
      file_lines: 3_001
    })
    expect(failure.details.prompt_tokens as number).toBeGreaterThan(5_000)
  })

  it('windows a large file planned without a line_range around what the issue names', async () => {
    const prompter = new DraftPrompter({
      repoDir: tempRepo({}),
      maxTokens: 5_000,
      focus: issueFocus
    })
    const messages = await prompter.messages(
      request(
        { path: 'src/handlers.ts', operation: 'MODIFY' },
        LARGE,
        '`handler150()` answers over when the value equals the index.'
      )
    )
    expect(prompter.records[0]!.focus_range).toEqual([1_501, 1_509])
    expect(prompter.records[0]!.context).toMatch(/^lines \d+-\d+ of 3000$/)
    expect(messages[1]!.content).toContain(
      '1501 | export function handler150(input: Request): Response {'
    )
    expect(await countMessageTokens(messages)).toBeLessThanOrEqual(5_000)
  })

  it('says so when the issue names nothing in a large file planned without a line_range', async () => {
    const prompter = new DraftPrompter({
      repoDir: tempRepo({}),
      maxTokens: 5_000,
      focus: issueFocus
    })
    const error = await prompter
      .messages(request({ path: 'src/handlers.ts', operation: 'MODIFY' }, LARGE, 'It is slow.'))
      .catch((e: unknown) => e)
    expect((error as PatchsmithError).code).toBe('TOKEN_BUDGET_EXCEEDED')
    expect((error as PatchsmithError).message).toContain(
      'The issue names nothing found in src/handlers.ts. Give the plan a line_range'
    )
  })

  it('cuts a huge issue body before giving up', async () => {
    const prompter = new DraftPrompter({ repoDir: tempRepo({}), maxTokens: 2_000 })
    const messages = await prompter.messages(
      request({ path: 'a.md', operation: 'MODIFY' }, 'a\n', 'lorem ipsum dolor '.repeat(2_000))
    )
    expect(await countMessageTokens(messages)).toBeLessThanOrEqual(2_000)
    expect(prompter.records[0]!.trimmed).toContain('issue cut')
  })

  it('names other changed files instead of showing them when a repair would not fit', async () => {
    const prompter = new DraftPrompter({ repoDir: tempRepo({}), maxTokens: 3_000 })
    const messages = await prompter.messages({
      ...request({ path: 'a.ts', operation: 'MODIFY' }, 'export const a = 1\n'),
      repair: {
        kind: 'the validation command "npm test" failed with exit code 1',
        failure: 'Expected 2, got 1',
        otherFiles: { 'src/handlers.ts': LARGE.slice(0, 20_000) }
      }
    })
    expect(messages[2]!.content).toContain('src/handlers.ts: changed (content left out')
    expect(prompter.records[0]!.trimmed).toEqual(['other files by name'])
  })
})

const EDITORCONFIG = [
  'root = true',
  '[*]',
  'indent_style = space',
  'indent_size = 4',
  'end_of_line = lf',
  'insert_final_newline = true',
  '[Makefile]',
  'indent_style = tab',
  '[*.bat]',
  'end_of_line = crlf',
  'insert_final_newline = false'
].join('\n')

describe('style from .editorconfig', () => {
  it('resolves each file by its own sections, with the fallback for what is unset', async () => {
    const repo = tempRepo({ 'repo/.editorconfig': EDITORCONFIG })
    expect(await styleForFile(repo, 'src/app.py')).toEqual({
      indent_style: 'space',
      indent_size: 4,
      end_of_line: 'lf',
      insert_final_newline: true
    })
    expect(await styleForFile(repo, 'Makefile')).toMatchObject({
      indent_style: 'tab',
      indent_size: 4
    })
    expect(await styleForFile(repo, 'tools/run.bat')).toMatchObject({
      end_of_line: 'crlf',
      insert_final_newline: false
    })
  })

  it('puts the file style with the file, after the part every draft of the run shares', async () => {
    const repo = tempRepo({ 'repo/.editorconfig': EDITORCONFIG })
    const prompter = new DraftPrompter({ repoDir: repo, maxTokens: 5_000 })
    const messages = await prompter.messages(
      request({ path: 'Makefile', operation: 'MODIFY' }, 'all:\n\techo hi\n')
    )
    const user = messages[1]!.content
    expect(messages[0]!.content).not.toContain('indent with')
    expect(user).toContain('- Style: indent with tabs, LF line endings, a final newline')
    expect(user.indexOf('- Style:')).toBeGreaterThan(user.indexOf('The file for this request:'))
  })

  it('takes the indent, line endings and final newline from the file when .editorconfig is silent', async () => {
    const python = [
      'class Config:',
      "    '''Settings.'''",
      '',
      '    def get(self, key):',
      '        if key in self.values:',
      '            return self.values[key]',
      '        return None',
      ''
    ].join('\r\n')
    const prompter = new DraftPrompter({ repoDir: tempRepo({}), maxTokens: 5_000 })
    const messages = await prompter.messages(
      request({ path: 'app/config.py', operation: 'MODIFY' }, python)
    )
    expect(messages[1]!.content).toContain(
      '- Style: indent with 4 spaces, CRLF line endings, a final newline'
    )
    // An .editorconfig that only names the line endings: the rest is the file's own.
    const repo = tempRepo({ 'repo/.editorconfig': 'root = true\n[*]\nend_of_line = lf\n' })
    const go = new DraftPrompter({ repoDir: repo, maxTokens: 5_000 })
    const goMessages = await go.messages(
      request(
        { path: 'main.go', operation: 'MODIFY' },
        'func main() {\r\n\tif ok {\r\n\t\trun()\r\n\t}\r\n}'
      )
    )
    expect(goMessages[1]!.content).toContain(
      '- Style: indent with tabs, LF line endings, no required final newline'
    )
  })

  it('reads the indent step from the file: 2, 4 or tabs, doc comments aside', () => {
    expect(
      fileStyle('function a() {\n  /**\n   * Doc.\n   */\n  if (x) {\n    y()\n  }\n}\n')
    ).toEqual({
      end_of_line: 'lf',
      insert_final_newline: true,
      indent_style: 'space',
      indent_size: 2
    })
    expect(fileStyle('a:\n\tb\n\tc\n    d\n')).toMatchObject({ indent_style: 'tab' })
    expect(fileStyle('no indent\n')).toEqual({ end_of_line: 'lf', insert_final_newline: true })
    expect(fileStyle('')).toEqual({})
  })

  it('ignores an .editorconfig above the repository and uses the fallback without one', async () => {
    const repo = tempRepo({ '.editorconfig': EDITORCONFIG.replace('root = true\n', '') })
    const fallback = {
      indent_style: 'tab',
      indent_size: 8,
      end_of_line: 'crlf',
      insert_final_newline: false
    } as const
    expect(await styleForFile(repo, 'src/app.py', fallback)).toEqual(fallback)
  })
})

describe('outline', () => {
  it('lists declarations and headings outside the window', () => {
    const lines = [
      '# Title',
      'text',
      'class Widget:',
      '    def size(self):',
      '        return 1',
      'def helper():',
      '    pass',
      'func (w *Widget) Name() string {',
      'pub fn build() {}'
    ]
    expect(outlineOf(lines, 5, 5).map((line) => line.trim())).toEqual([
      '1: # Title',
      '3: class Widget:',
      '4:     def size(self):',
      '6: def helper():',
      '8: func (w *Widget) Name() string {',
      '9: pub fn build() {}'
    ])
  })

  it('lists the imports first, whatever their distance from the window', () => {
    const lines = [
      'import os',
      'from a.b import c',
      '#include <stdio.h>',
      "const fs = require('fs')"
    ]
    for (let i = 0; i < 60; i++) lines.push(`def f${i}():`, '    pass')
    const outline = outlineOf(lines, 120, 124).map((line) => line.trim())
    expect(outline.slice(0, 4)).toEqual([
      '1: import os',
      '2: from a.b import c',
      '3: #include <stdio.h>',
      "4: const fs = require('fs')"
    ])
    expect(outline).toHaveLength(44)
    expect(outline).not.toContain('5: def f0():')
  })

  it("keeps a far declaration the window's code names over nearer ones when it must choose", () => {
    const lines: string[] = []
    for (let i = 0; i < 100; i++) lines.push(`def f${i}():`, '    pass')
    lines.push('def target():', '    return f3() + f150()')
    const outline = outlineOf(lines, 201, 202).map((line) => line.trim())
    expect(outline).toHaveLength(40)
    expect(outline).toContain('7: def f3():')
    expect(outline).toContain('199: def f99():')
    expect(outline).not.toContain('5: def f2():')
  })
})

describe('prompt order for prompt caching', () => {
  it.each(['udiff', 'search-replace', 'json-edits', 'whole-file'] as const)(
    'the drafts of one run (%s) share everything up to the file: rules, issue, plan steps, format',
    async (format) => {
      const repo = tempRepo({ 'repo/.editorconfig': EDITORCONFIG })
      const prompter = new DraftPrompter({ repoDir: repo, maxTokens: 5_000 })
      const changes: Array<[FileChange, string]> = [
        [{ path: 'README.md', operation: 'MODIFY', line_range: [1, 1] }, '# Title\nteh end\n'],
        [{ path: 'Makefile', operation: 'MODIFY', description: 'tabs' }, 'all:\n\techo hi\n'],
        [{ path: 'src/app.ts', operation: 'MODIFY' }, 'export const a = 1\n']
      ]
      const texts = await Promise.all(
        changes.map(async ([change, content]) =>
          (await prompter.messages({ ...request(change, content), format }))
            .map((message) => `${message.role}: ${message.content}`)
            .join('\n')
        )
      )
      const shared = sharedPrefix(texts)
      // The only differences come after the file section starts, so a provider's prompt cache
      // serves the rest of every draft after the first.
      expect(
        texts.every((text) => text.indexOf('The file for this request:') <= shared.length)
      ).toBe(true)
      expect(shared).toContain(TYPO_ISSUE.title)
      expect(shared).toContain('Plan steps')
      expect(shared).toMatch(/The file for this request:\n\n- Path: $/)
      expect(shared.length / Math.min(...texts.map((text) => text.length))).toBeGreaterThan(0.7)
    }
  )

  it.each(['udiff', 'search-replace', 'json-edits', 'whole-file'] as const)(
    'drafts for different issues (%s) share the rules, the format and the example',
    async (format) => {
      const repo = tempRepo({ 'repo/.editorconfig': EDITORCONFIG })
      const prompter = new DraftPrompter({ repoDir: repo, maxTokens: 5_000 })
      const change: FileChange = { path: 'src/app.ts', operation: 'MODIFY' }
      const texts = await Promise.all(
        ['first issue', 'another issue entirely'].map(async (body) =>
          (await prompter.messages({ ...request(change, 'export const a = 1\n', body), format }))
            .map((message) => `${message.role}: ${message.content}`)
            .join('\n')
        )
      )
      const shared = sharedPrefix(texts)
      expect(shared).toContain('minimal example')
      expect(shared.indexOf('minimal example')).toBeLessThan(shared.indexOf('<issue-body'))
      expect(texts[0]!.indexOf('Issue #')).toBeGreaterThan(texts[0]!.indexOf('minimal example'))
    }
  )
})
