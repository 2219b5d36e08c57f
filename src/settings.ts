/**
 * The action's face: which settings are inputs of their own, which are grouped in the
 * `settings` input, and the merged forms (an issue number in `issue`, named steps in
 * `validation-commands`, max-attempts from max-repairs). config.ts holds the settings
 * themselves; this file only turns what a user wrote into them.
 */
import { readCommandLine } from './validation/steps.js'

export class ConfigError extends Error {
  constructor(
    message: string,
    readonly setting?: string
  ) {
    super(message)
    this.name = 'ConfigError'
  }
}

/** The inputs of action.yml, in its order and groups; each is also a CLI flag. */
export const ACTION_INPUT_GROUPS = {
  'What to fix': [
    'repo',
    'issue',
    'fix-plan',
    'triage-result',
    'task-file',
    'agent-input',
    'coding-task',
    'follow-up'
  ],
  Model: ['model', 'base-url', 'api-key', 'edit-format'],
  Validation: ['validation-commands', 'setup-commands', 'validation-env', 'sandbox'],
  Budgets: ['max-repairs', 'max-total-tokens', 'max-cost', 'time-limit'],
  Trust: ['require-actor-permission', 'allow-plan-commands', 'blocked-paths'],
  Git: ['push', 'base-branch', 'dry-run'],
  Report: ['github-token', 'artifact-name', 'artifact-run-id'],
  'Everything else': ['settings']
} as const

export const ACTION_INPUTS: readonly string[] = Object.values(ACTION_INPUT_GROUPS).flat()

/** The settings written as `name: value` lines in the `settings` input (and CLI flags too). */
export const GROUPED_SETTINGS: Record<string, { key: string; list?: boolean; about: string }> = {
  'model-timeout': {
    key: 'modelTimeout',
    about:
      'Seconds one try of a model call may take, to the last byte of the reply; a try that runs out ends the run with TIMEOUT.'
  },
  'model-retries': {
    key: 'modelRetries',
    about:
      'Retries of one model call on HTTP 408, 409, 429, 5xx, dropped connections and replies cut off on the way, waiting as retry-after says (up to 120 s) or with a backoff capped at 30 s, never past time-limit.'
  },
  'model-headers': {
    key: 'modelHeaders',
    list: true,
    about:
      'Extra HTTP headers for the model endpoint, `Name: value` (one line each); masked in logs. Authorization cannot be set here.'
  },
  'model-stream': {
    key: 'modelStream',
    about: "Stream the model's replies (capped at 2 MiB). Turn off for servers that stream badly."
  },
  'structured-output': {
    key: 'structuredOutput',
    about: 'How json-edits replies are asked for: auto, json-schema, tool or prompt.'
  },
  'model-pricing': {
    key: 'modelPricing',
    about:
      'USD per million input, cached input and output tokens, e.g. `2.00 0.50 8.00` (two numbers: cached input costs as input); gives the `cost` output and the metrics their dollars, and max-cost its measure.'
  },
  'budget-per-day': {
    key: 'budgetPerDay',
    about:
      "The repository's spend over any 24 hours, across runs: `20 usd` (or `$20`, needs model-pricing) or `2000000 tokens` (for endpoints with no price). Each run reserves its cap (max-cost, or max-total-tokens at the dearest price; max-total-tokens for tokens) in a ledger on origin (refs/patchsmith/budget) before its first model call and settles what it spent at the end; a run whose cap does not fit does not start (outcome budget-exhausted, not a failure) and says when budget frees up. Needs a github-token that can push."
  },
  'budget-per-week': {
    key: 'budgetPerWeek',
    about:
      'The same over any 7 days; with budget-per-day, a run starts only when its cap fits both.'
  },
  'max-tokens-per-draft': {
    key: 'maxTokensPerDraft',
    about:
      'Prompt tokens one draft call may use; a context that cannot fit ends the run with TOKEN_BUDGET_EXCEEDED.'
  },
  concurrency: {
    key: 'concurrency',
    about: 'How many model calls may run at once when drafting several file changes.'
  },
  'command-timeout': {
    key: 'commandTimeout',
    about: 'Seconds each validation command may run before its whole process group is killed.'
  },
  'output-limit': {
    key: 'outputLimit',
    about: 'Characters of stdout and of stderr kept per validation command in the result.'
  },
  'retry-flaky': {
    key: 'retryFlaky',
    about: 'Run a failing test once more; a pass is kept and marked flaky in the result.'
  },
  'on-preexisting-failure': {
    key: 'onPreexistingFailure',
    about:
      'When only failures unrelated to the issue remain (each fails the same way on the untouched base and the issue or plan does not name it): fail at once, without a repair call, or commit (recorded as preexisting and in the proof). Failures the issue names are always repaired.'
  },
  reproduction: {
    key: 'reproduction',
    about:
      'When a validation command runs a test framework and the issue reports behaviour, the model first writes a test that must fail on the base by an assertion; the fix must make it pass. commit (default): the test is committed with the fix. evidence: it runs and is shown in the proof but is not committed. off: no reproduction.'
  },
  'reproduction-attempts': {
    key: 'reproductionAttempts',
    about:
      'Model requests for a reproduction (1–5, default 2): a test that passes on the base, or fails by an import, syntax, collection or missing-name error, is sent back with its output.'
  },
  'require-reproduction': {
    key: 'requireReproduction',
    about:
      'true: a run that finds no reproduction (and no failing test the issue names) stops with VALIDATION_FAILED before drafting, nothing committed. false (default): it may commit, marked Unverified with the reason.'
  },
  'validation-network': {
    key: 'validationNetwork',
    about:
      "closed (default): validation, fix and hook commands run in a network namespace of their own with loopback only. open: they keep the runner's network (a warning in the log and the job summary); prefer setup-commands for installs."
  },
  'validation-overlay': {
    key: 'validationOverlay',
    about:
      "true (default): where the sandbox can (as root, with util-linux unshare and mount, the work tree on the same file system as the temp folder), each validation command runs on an overlay of the work tree and what it did is carried into the tree when it ends, so nothing after validation scans the whole work tree. A command there cannot rename a folder that was in the tree before it (tools copy instead). false: commands run on the work tree itself. There, a file with more than one name (a hard link, as pnpm's store makes) is first made a copy of its own, so no command rewrites it elsewhere."
  },
  'validation-keep': {
    key: 'validationKeep',
    list: true,
    about:
      "A glob (e.g. `dist/**`) of build output validation may leave in the work tree for a later step: regular files only, never a link or a special file, and without a set-user or set-group ID bit. Everything else validation, the base check, auto-fixes or hooks created or changed that is not the approved change is removed or checked out again after it, on success and on failure, ignored files included; the result's metrics.removed_after_validation names what was removed."
  },
  'output-path': {
    key: 'outputPath',
    about:
      'Where to write the AgentResponse<Commit[]> JSON (relative paths are taken from the workspace). Default: $RUNNER_TEMP/patchsmith/result.json, outside the work tree, so a pull-request step that picks up untracked files does not commit it; the output-path output names it. A character device or fifo there (/dev/null, /dev/stdout) is written to and never replaced; a socket, a folder or a fifo no process reads is refused (INVALID_INPUT); only a link is taken away, never written through.'
  },
  'log-dir': {
    key: 'logDir',
    about:
      'Folder for the numbered attempt logs, outside the work tree (default $RUNNER_TEMP/patchsmith/logs); uploaded with the artifact. Something there that is not a folder is refused (INVALID_INPUT), never replaced.'
  },
  'allowed-bots': {
    key: 'allowedBots',
    list: true,
    about: 'A bot login (e.g. renovate[bot]) allowed to start a run; other bots are refused.'
  },
  'allow-protected-paths': {
    key: 'allowProtectedPaths',
    list: true,
    about:
      'A glob of protected paths (workflows, lockfiles, hook managers, agent instruction files, ...) the agent may change.'
  },
  'unicode-text-paths': {
    key: 'unicodeTextPaths',
    list: true,
    about:
      'A glob of files whose text is content, where added lines may hold joiners, zero-width characters and bidi marks (a language that needs them), beside the defaults: translation catalogues (`*.po`, `*.xliff`, `*.strings`, `*.arb`, `*.ftl`, ...) and data files (JSON, YAML, TOML, properties, XML) in `locale`, `locales`, `i18n`, `l10n`, `lang`, `translations` or `messages` folders. Everywhere else, Markdown included, such characters are refused (SECURITY_VIOLATION invisible-unicode); bidi overrides and tag characters in every file.'
  },
  'repo-instructions': {
    key: 'repoInstructions',
    about:
      "Put the repository's instructions for agents in the plan and draft prompts: the AGENTS.md nearest each planned file, CLAUDE.md, .github/copilot-instructions.md, CONVENTIONS.md and GEMINI.md, read from the base commit, sanitized, fenced as data that cannot widen Patchsmith's rules and capped at 2000 tokens; the result's metrics.repo_instructions and the job summary name them."
  },
  signoff: { key: 'signoff', about: 'Add a Signed-off-by trailer to the commit.' },
  'git-hooks': {
    key: 'gitHooks',
    about:
      "Run the repository's commit hooks when committing (they are repository code: off by default), in the sandbox and within command-timeout."
  },
  'commit-signing': {
    key: 'commitSigning',
    about:
      "`git` (default): commits are made with local git and pushed. `github`: each commit is made again through the GitHub API (Git Data API) with exactly the approved tree and message, so GitHub signs it (Verified; its author is the token's identity); the branch is created or moved on origin by the API, fetched back and checked. Follow-up rounds too. For rulesets that require signed commits. Needs push: true and github-token with `contents: write`; 2 API requests per commit and 1 for the branch."
  },
  'comment-on-failure': {
    key: 'commentOnFailure',
    about: 'Comment on the issue when the run fails.'
  },
  'progress-comment': {
    key: 'progressComment',
    about:
      'When an issue, a comment or a review starts the run, or someone runs the workflow by hand (`workflow_dispatch`) for an issue: one comment there (on the issue the inputs name, for a run by hand) within seconds once the `require-actor-permission` of whoever started it is checked (someone refused gets only the refusal), naming the run, edited at each phase (planning, drafting, validating with the repair count, committing, pushing) and ending with the outcome (files, proof table, cost, or the failure and how to rerun). Needs `issues: write` (`pull-requests: write` on a pull request); never in a dry run.'
  },
  'failure-label': {
    key: 'failureLabel',
    about: 'Label added to the issue when the run fails; `failure-label:` with no value adds none.'
  },
  'upload-artifact': {
    key: 'uploadArtifact',
    about: 'Upload the result file, summary and logs as a workflow artifact.'
  },
  'input-artifact-name': {
    key: 'inputArtifactName',
    about:
      "The artifact of artifact-run-id to read inputs from: Patchsmith's own result artifact or a planner's with issue.json and fix-plan.json."
  },
  'max-follow-up-rounds': {
    key: 'maxFollowUpRounds',
    about:
      'Follow-up rounds per pull request (counted from its commits) before Patchsmith stops with a summary comment.'
  },
  'plan-approval': {
    key: 'planApproval',
    about:
      "required: a run loads and guards its plan, then posts it in the progress comment (files, steps, validation commands, the reproduction test it would write) with its hash, changes nothing and ends awaiting approval (the result's awaiting_approval, the outcome output; the step succeeds). A writer approves with a comment `/patchsmith approve <hash>`, or by adding the approval-label to the issue; the run that starts uses exactly the plan that hash names (the label: the plan in Patchsmith's newest plan comment as it was when the label was added), as the plan comment holds it (a writer may edit the plan's JSON there, then approve the new hash) and refuses when the plan or the issue's text no longer has that hash, the plan comment was edited after the label, or the approver lacks write permission. A run with no issue comment to post it in (the command line, a dry run, an event not from an issue such as repository_dispatch) cannot post its plan: its result (awaiting_approval.not_posted), log and summary say so and how to approve it. off (default): no approval."
  },
  'approval-label': {
    key: 'approvalLabel',
    about:
      'With plan-approval: required, the label whose adding to the issue by a writer approves the plan Patchsmith posted there (an issues event, action labeled). Not the label that asks for a plan.'
  },
  issues: {
    key: 'issues',
    about:
      "Several issues in one run, on one branch (fix/batch-12-15-18): numbers in order (`12, 15, 18`) or `label:NAME` (its open issues, oldest first; at most 20). Each issue is planned plan-less on the branch as the issues before it left it, validated and committed with its own proof and Fixes #N, and pushed; the first that fails is rolled back and stops the batch, the commits before it stay. A rerun of the same batch goes on from the branch's tip on origin: the issues whose commits (Patchsmith's, with Fixes #N, in order) are there are done and not run again; any other commit there is refused (BRANCH_EXISTS). The result (metrics.issues, error.details.issues) and the pull-request body list each issue's outcome: done by an earlier run, committed, failed or not run."
  },
  resume: {
    key: 'resume',
    about:
      "Repair from the last attempt an earlier run kept (error.details.last_attempt) instead of drafting again: true reads that run's result.json from the artifact-run-id artifact, or the result file at output-path; or a result file's path. The kept diff is checked like a model reply and validated first."
  }
}

/** `lint: npm run lint` in validation-commands: the named pipeline steps. */
const STEP_PREFIXES: Record<string, string> = {
  format: 'formatCommand',
  'format-fix': 'formatFixCommand',
  lint: 'lintCommand',
  'lint-fix': 'lintFixCommand',
  typecheck: 'typecheckCommand',
  test: 'testCommand'
}
const STEP_LINE = /^(format|format-fix|lint|lint-fix|typecheck|test):\s+(\S.*)$/

const linesOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split('\n') : []

/** The settings as written (inputs, flags) → the keys of RunConfigSchema. */
export function expandSettings<T extends object>(input: T): T {
  const out = { ...input } as Record<string, unknown>
  const fromGroup = new Set<string>()
  for (const [index, raw] of linesOf(out.settings).entries()) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-z][a-z-]*)\s*:\s*(.*)$/.exec(line)
    if (!match)
      throw new ConfigError(
        `Setting "settings": line ${index + 1} is not "name: value".`,
        'settings'
      )
    const grouped = GROUPED_SETTINGS[match[1]!]
    if (!grouped)
      throw new ConfigError(
        `Setting "settings": "${match[1]}" is not a grouped setting (${Object.keys(GROUPED_SETTINGS).join(', ')}).`,
        'settings'
      )
    // A setting's own flag wins over the same name in the group.
    if (out[grouped.key] !== undefined && !fromGroup.has(grouped.key)) continue
    fromGroup.add(grouped.key)
    out[grouped.key] = grouped.list
      ? [...((out[grouped.key] as string[] | undefined) ?? []), match[2]!]
      : match[2]
  }
  delete out.settings

  const issue = typeof out.issue === 'string' ? out.issue.trim() : undefined
  if (issue && /^#?\d+$/.test(issue)) {
    out.issueNumber ??= issue.replace('#', '')
    delete out.issue
  }

  if (out.validationCommands !== undefined) {
    const plain: string[] = []
    for (const line of linesOf(out.validationCommands)) {
      const step = STEP_LINE.exec(line.trim())
      if (step) out[STEP_PREFIXES[step[1]!]!] ??= step[2]
      else plain.push(readCommandLine(line).command)
    }
    out.validationCommands = plain
  }

  // One budget for repair rounds: the draft plus max-repairs.
  const repairs = Number(out.maxRepairs ?? 3)
  if (out.maxAttempts === undefined && Number.isInteger(repairs)) out.maxAttempts = repairs + 1
  return out as T
}
