import type { AwaitingApproval } from '../contract/index.js'
import { cell, code, details, fence, table } from './markdown.js'

/** A comment that holds a plan for approval starts its plan section with this. */
const PLAN_MARKER = '<!-- patchsmith:plan -->'
const JSON_START = '<!-- patchsmith:plan-json -->'
const JSON_END = '<!-- /patchsmith:plan-json -->'
const PLAN_STEPS = 30

/**
 * A plan held for approval, as the progress comment shows it: the files, steps, validation
 * commands and the reproduction, every piece of plan text made inert; the command that approves
 * it; and the plan itself as JSON a writer may edit in place (readPlanJson reads it back).
 */
export function planComment(awaiting: AwaitingApproval, runUrl?: string): string {
  const plan = awaiting.fix_plan
  const files = plan.file_changes.map((change) => [
    code(change.path),
    change.operation,
    cell(change.description ?? '')
  ])
  const steps = plan.plan_steps
    .slice(0, PLAN_STEPS)
    .map((step, i) => `${i + 1}. ${cell(typeof step === 'string' ? step : JSON.stringify(step))}`)
  if (plan.plan_steps.length > PLAN_STEPS)
    steps.push(`_… ${plan.plan_steps.length - PLAN_STEPS} more in the JSON below_`)
  const commands = awaiting.validation_commands.map((command) => `- ${code(command)}`)
  const repro = awaiting.reproduction
  const label = awaiting.approve_label
  return [
    PLAN_MARKER,
    `### 📋 Plan for #${awaiting.issue_number}: awaiting approval`,
    ...(awaiting.not_posted ? [`> [!WARNING]\n> ${cell(awaiting.not_posted)}`] : []),
    'Nothing was changed. A person with write permission on this repository approves this plan ' +
      'by replying with this line' +
      (label ? `, or by adding the label ${code(label)} to the issue` : '') +
      '; the run it starts uses exactly this plan:',
    fence(awaiting.approve_command),
    table(
      ['', ''],
      [
        ['Plan', code(awaiting.plan_hash)],
        ['Branch', code(plan.branch_name)],
        ...(runUrl ? [['Run', `[logs](${runUrl})`]] : [])
      ]
    ),
    '#### Files',
    table(['File', 'Change', 'What'], files),
    ...(steps.length > 0 ? ['#### Steps', steps.join('\n')] : []),
    '#### Validation',
    commands.length > 0 ? commands.join('\n') : '_No validation command._',
    '#### Reproduction',
    'path' in repro
      ? `The model is asked first for ${code(repro.path)} (${cell(repro.framework)}), a test run by ${code(repro.command)} that must fail on the base by an assertion.`
      : `None: ${cell(repro.none)}.`,
    details(
      'Edit the plan',
      'A writer may edit the JSON below in this comment; the plan then has a new hash, which ' +
        '`/patchsmith approve` without a hash answers with. An approval of the old hash is refused.\n\n' +
        `${JSON_START}\n${fence(planJson(awaiting), 'json')}\n${JSON_END}`
    )
  ].join('\n\n')
}

/**
 * The plan's JSON with the signs Markdown or GitHub act on (`<`, `>`, `&`, `@`, `#`, backticks,
 * `://`) written as JSON escapes: the same value when read back, and inert in the comment.
 */
function planJson(awaiting: AwaitingApproval): string {
  const json = JSON.stringify(
    { triage_result: awaiting.triage_result, fix_plan: awaiting.fix_plan },
    null,
    2
  )
  return json
    .replace(
      /[<>&@#`\u0085\u2028\u2029]/g,
      (sign) => `\\u${sign.charCodeAt(0).toString(16).padStart(4, '0')}`
    )
    .replace(/:\/\//g, '\\u003a//')
}

/**
 * The plan JSON of a plan comment as it stands now (a writer may have edited it), or undefined
 * when the comment holds no plan section.
 */
export function readPlanJson(body: string): string | undefined {
  body = body.replace(/\r\n?/g, '\n')
  if (!body.includes(PLAN_MARKER)) return undefined
  const start = body.indexOf(JSON_START)
  const end = body.indexOf(JSON_END, start)
  if (start < 0 || end < 0) return undefined
  const block = body.slice(start + JSON_START.length, end)
  const fenced = /^\s*(`{3,})json[^\n]*\n([\s\S]*?)\n\1\s*$/.exec(block)
  return fenced?.[2]
}
