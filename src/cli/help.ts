import { SETTING_KINDS, type SettingKey } from '../config.js'

/** One flag of `--help`: its name (a setting's, or the CLI's own), what it takes, one line on it. */
type HelpEntry = [flag: string, value: string, about: string]

/**
 * Every flag the CLI takes, by what it is about, one line each (docs/inputs.md has the long
 * form). A setting missing here is a test failure (cli.test.ts), so the list stays whole.
 */
const GROUPS: Array<[title: string, entries: HelpEntry[]]> = [
  [
    'Input',
    [
      ['repo', 'DIR', 'the repository to work in (default: the current folder)'],
      ['issue', 'FILE', 'the issue: JSON or YAML file (number, title, body), or a number'],
      ['issue-number', 'N', 'the issue fetched from GitHub (GITHUB_REPOSITORY and a token)'],
      ['fix-plan', 'FILE', 'the fix plan; without one, Patchsmith plans the fix itself'],
      ['triage-result', 'FILE', 'the triage result (classification, risk, affected files)'],
      ['task-file', 'FILE', 'a tasks.md: each task validated and committed on one branch'],
      ['agent-input', 'FILE', 'a whole CodeAgentInput, instead of --issue, --plan, --triage'],
      ['coding-task', 'FILE', 'a CodingTask: committed on agt/<id>; the result is a CommitResult'],
      ['follow-up', 'N', "answer the review of Patchsmith's pull request N"],
      ['resume', 'true|FILE', "repair from an earlier run's last attempt (true: its result)"],
      ['issues', "'12, 15'|label:NAME", 'several issues on one branch, a commit each, in order'],
      ['plan-approval', 'MODE', 'required: post the plan, change nothing, await approval (off)'],
      ['approval-label', 'NAME', 'the label that approves a posted plan (patchsmith-approved)'],
      ['artifact-run-id', 'ID', "take missing inputs from that workflow run's artifact"],
      ['input-artifact-name', 'NAME', 'the artifact --artifact-run-id reads (patchsmith-result)']
    ]
  ],
  [
    'Model',
    [
      ['model', 'NAME', 'the model (or deployment) asked for edits (gpt-4.1)'],
      ['base-url', 'URL', 'an OpenAI-compatible API (https://api.openai.com/v1)'],
      ['api-key-file', 'FILE', 'the API key, read from FILE (else OPENAI_API_KEY)'],
      ['edit-format', 'FORMAT', 'udiff, search-replace, json-edits, whole-file or auto (udiff)'],
      ['model-timeout', 'SECONDS', 'how long one try of a model call may take (120)'],
      ['model-retries', 'N', 'retries of a model call on 408, 429, 5xx, a lost connection (4)'],
      ['model-headers', "'NAME: VALUE'", 'an extra HTTP header for the model endpoint'],
      ['model-stream', '', "stream the model's replies (on)"],
      ['structured-output', 'MODE', 'json-edits replies: auto, json-schema, tool or prompt (auto)'],
      ['model-pricing', "'IN CACHED OUT'", 'USD per million tokens: the cost, and --max-cost'],
      ['max-tokens-per-draft', 'N', 'prompt tokens one draft call may use (5000)'],
      ['concurrency', 'N', 'model calls at once when drafting several files (4)'],
      ['repo-instructions', '', "the repository's AGENTS.md, CLAUDE.md … in the prompts (on)"]
    ]
  ],
  [
    'Budgets',
    [
      ['max-repairs', 'N', 'repairs after a failed apply or validation (3)'],
      ['max-attempts', 'N', 'draft rounds in all (default: 1 + max-repairs)'],
      ['max-total-tokens', 'N', 'tokens over all model calls; 0: no limit (200000)'],
      ['max-cost', 'USD', 'dollars over all model calls (--model-pricing); 0: no limit (0)'],
      ['time-limit', 'SECONDS', 'how long the whole run may take; 0: no limit (1500)'],
      ['budget-per-day', "'20 usd'", "the repository's spend over 24 h, across runs ('N tokens')"],
      ['budget-per-week', "'100 usd'", 'the same over 7 days (patchsmith budget shows the ledger)']
    ]
  ],
  [
    'Validation',
    [
      [
        'validation-commands',
        'CMD',
        'a trusted command run on the edits; `test: CMD` names a step'
      ],
      ['setup-commands', 'CMD', 'run once on the base before any model call, with the network'],
      ['format-command', 'CMD', 'the format check step (as `format: CMD`)'],
      ['format-fix-command', 'CMD', 'what fixes a failed format check (`format-fix: CMD`)'],
      ['lint-command', 'CMD', 'the lint step (`lint: CMD`)'],
      ['lint-fix-command', 'CMD', 'what fixes a failed lint (`lint-fix: CMD`)'],
      ['typecheck-command', 'CMD', 'the typecheck step (`typecheck: CMD`)'],
      ['test-command', 'CMD', 'the test step (`test: CMD`)'],
      ['validation-env', 'NAME', 'a further environment variable the commands may see'],
      ['sandbox', 'MODE', 'where the commands run: auto, required or off (auto)'],
      ['validation-network', 'MODE', 'closed (loopback only) or open (closed)'],
      ['validation-overlay', '', 'each command on an overlay of the work tree where it can (on)'],
      ['validation-keep', 'GLOB', 'build output validation may leave in the work tree'],
      ['command-timeout', 'SECONDS', 'how long each command may run (300)'],
      ['output-limit', 'N', 'characters of stdout and of stderr kept per command (1000)'],
      ['retry-flaky', '', 'run a failing test once more; a pass is marked flaky (off)'],
      ['on-preexisting-failure', 'MODE', 'only failures the base has too remain: fail or commit'],
      [
        'reproduction',
        'MODE',
        'a test that fails on the base first: commit it, evidence (run, not committed) or off (commit)'
      ],
      ['reproduction-attempts', 'N', 'model requests for a reproduction (2)'],
      ['require-reproduction', '', 'stop before drafting when nothing reproduces the issue (off)'],
      ['allow-plan-commands', '', "run the plan's commands that are not listed here (off)"]
    ]
  ],
  [
    'Paths',
    [
      ['blocked-paths', 'GLOB', 'a path no edit may touch, besides the built-in ones'],
      [
        'allow-protected-paths',
        'GLOB',
        'a protected path (workflows, lockfiles …) edits may touch'
      ],
      ['unicode-text-paths', 'GLOB', 'files whose added lines may hold invisible Unicode']
    ]
  ],
  [
    'Git',
    [
      ['push', '', "push the plan's branch to origin (on); --no-push: only commit on it"],
      ['base-branch', 'NAME', 'the branch to start from (default: the one checked out)'],
      ['dry-run', '', 'draft, apply and validate, then roll back: no commit'],
      ['signoff', '', 'a Signed-off-by trailer on the commit (on)'],
      ['git-hooks', '', "run the repository's commit hooks (off)"],
      [
        'commit-signing',
        'MODE',
        'git, or github: the GitHub API makes and signs the commits (git)'
      ],
      ['max-follow-up-rounds', 'N', 'follow-up rounds per pull request (2)']
    ]
  ],
  [
    'Output',
    [
      ['json', '', 'print the whole result JSON on stdout'],
      [
        'output-path',
        'FILE',
        "the result JSON (default: this repository's, under the temp folder)"
      ],
      ['log-dir', 'DIR', 'the attempt logs (default: a folder beside that result)'],
      ['pull-request-body', 'FILE', "a committed run's pull-request body, written to FILE"],
      ['help', '', 'this list'],
      ['version', '', "Patchsmith's version"]
    ]
  ],
  [
    'GitHub (with GITHUB_REPOSITORY and a token)',
    [
      ['github-token-file', 'FILE', 'the GitHub token, read from FILE (else GITHUB_TOKEN)'],
      ['comment-on-failure', '', 'comment on the issue when the run fails (on)'],
      ['failure-label', 'NAME', 'the label a failure adds to the issue (automation-failed)']
    ]
  ],
  [
    'Accepted for the action, no effect here',
    [
      ['progress-comment', '', 'the comment on the issue a person started the run from'],
      ['upload-artifact', '', 'the workflow artifact of the result and logs'],
      ['artifact-name', 'NAME', 'that artifact'],
      [
        'require-actor-permission',
        'LEVEL',
        "the starter's permission: the CLI has no event sender"
      ],
      ['allowed-bots', 'LOGIN', 'a bot that may start a run: the CLI has no event sender']
    ]
  ],
  ['Other', [['settings', "'NAME: VALUE'", "a line of the action's settings input"]]]
]

const COLUMN = 36

/** The flags every process could read a secret from: refused, and said why. */
const REFUSED = [
  '  --api-key, --github-token         a secret on the command line can be read by every process:',
  '                                    set OPENAI_API_KEY and GITHUB_TOKEN, or pass --api-key-file',
  '                                    FILE and --github-token-file FILE'
]

export function usage(aliases: Readonly<Record<string, string>>): string {
  const groups = GROUPS.flatMap(([title, entries]) => [
    '',
    `${title}:`,
    ...entries.map(([flag, value, about]) => {
      const kind = (SETTING_KINDS as Record<string, string | undefined>)[camel(flag)]
      const name = kind === 'boolean' ? `--[no-]${flag}` : `--${flag}`
      const left = `  ${name}${value ? ` ${value}` : ''}${kind === 'list' ? ' …' : ''}`
      return `${left.padEnd(COLUMN)}${left.length >= COLUMN ? ' ' : ''}${about}`
    })
  ])
  const aliasList = Object.entries(aliases).map(([alias, flag]) => `--${alias} (--${flag})`)
  return [
    'Usage: patchsmith run --repo DIR --issue FILE --plan FILE [options]',
    '       patchsmith run --repo DIR --issue FILE | --issue-number N   (no plan: Patchsmith plans)',
    '       patchsmith run --repo DIR --coding-task FILE                (its result: a CommitResult)',
    '       patchsmith commit [--repo DIR]   (seed code-commit: agent-config/query.txt, build.sh)',
    "       patchsmith follow-up --repo DIR --pr N   (answer the review of Patchsmith's own PR)",
    '       patchsmith recover [--repo DIR]  (undo what a killed run left, clear a stale lock)',
    "       patchsmith budget [--repo DIR] [--budget-per-day '20 usd'] [--json]  (the budget ledger)",
    '       patchsmith replay FILE [--repo DIR] [--validation-command CMD …]  (rerun a recorded run',
    '         offline from its replay.json: the same tree, or where it diverged)',
    '',
    'Turns an issue and a fix plan into a validated commit. Progress and a short summary go to',
    'stderr; the result JSON to a file (--output FILE) and, with --json, to stdout. Exit codes:',
    '0 committed (or validated, in a dry run), 1 refused or failed, 2 bad usage, 75 not started:',
    'the rolling budget is spent (the summary says when it frees up). A flag with …',
    'may repeat; --[no-]x is --x or --no-x; defaults are in parentheses. docs/cli.md says more.',
    ...groups,
    '',
    ...wrap(`Aliases: ${aliasList.join(', ')}`, '         '),
    '',
    'Refused:',
    ...REFUSED
  ].join('\n')
}

function camel(flag: string): SettingKey {
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as SettingKey
}

/** `text` in lines of at most 92 characters, broken at spaces; the next lines start with `indent`. */
function wrap(text: string, indent: string): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > 92) {
      lines.push(line)
      line = indent + word
    } else line = line ? `${line} ${word}` : word
  }
  return [...lines, line]
}
