/**
 * Every `error.details.rule` a refusal carries, with the one line SECURITY.md's rule table gives
 * it (a test holds the two together). A rule names why the run refused, not the error code:
 * one rule can end a run as INVALID_INPUT in one place and GIT_CONFLICT in another.
 */
export const REFUSAL_RULES = {
  // Paths and files
  'empty-path': 'a path is empty',
  'path-too-long': 'a path is longer than the limit',
  'path-charset': 'a path holds control, bidi or invisible characters',
  'absolute-path': 'a path is absolute',
  'path-traversal': 'a path leaves the repository (`..`)',
  'non-canonical-path': 'a path is not in canonical form (`./`, `//`, a trailing slash)',
  'git-directory': 'a path is inside `.git/`',
  'blocked-path': 'a path matches a `blocked-paths` glob or the built-in blocked list',
  'protected-path': 'a path is in the protected set and not opened by `allow-protected-paths`',
  gitignored: 'a path is ignored by git',
  symlink: 'a path is, or goes through, a symbolic link',
  'not-a-file': 'a path exists and is not a regular file, or a folder on its way is not a folder',
  'outside-plan': 'an edit touches a file the plan does not name, or in another way than planned',
  'unplanned-path': 'a code-commit repair changes a file the first reply did not',
  'in-submodule': 'a planned path lies inside a submodule',
  'case-twin': 'a planned path differs only in letter case from another file',
  'lfs-pointer': 'a planned file is a Git LFS pointer',
  'binary-file': 'a planned file is binary to git',
  'not-text': 'a planned file is not UTF-8 text',
  'file-too-large': 'a planned file is over the size limit',
  // Content
  'invisible-unicode': 'an added line of a code file holds an invisible or bidi character',
  'secret-detected': 'an added line holds a secret, by pattern or as a known value',
  'secret-in-change': "a written file would hold more of this run's secrets than before",
  'input-too-large': 'an input (issue, plan, reply, edit) is over its size limit',
  'too-deep': 'a structured input nests deeper than the limit',
  'forbidden-key': 'a structured input has a key such as `__proto__`',
  'parse-error': 'a structured input is not valid JSON or YAML',
  'unreadable-input': 'an input file is missing or not readable',
  'missing-input': 'a task file run has no issue',
  // Replies and diffs
  'patch-parse': 'a reply names a file in a way that cannot be read safely (quoted, mismatched)',
  'patch-mode': 'a reply asks to change a file mode',
  'patch-binary': 'a reply holds a binary patch',
  'patch-copy-rename': 'a reply asks to copy or rename a file',
  'git-apply-check': '`git apply --check` refuses the canonical diff',
  'no-change': 'the edits change nothing',
  'invalid-plan': "the model's fix plan was refused twice",
  'no-candidates': 'no fix plan, and no file matches what the issue names',
  // Commands, sandbox and repository state
  'command-not-allowed': 'the plan asks to run a command that is not a trusted validation command',
  'sandbox-unavailable': 'no sandbox works and the settings require one',
  'hard-link-outside-tree':
    "a file of the work tree or of git's folder with more than one name could not be made a copy of its own",
  'setup-failed': 'a setup command failed on the base commit',
  'reproduction-required':
    'no test reproduced the issue on the base and `require-reproduction` is set',
  'unexpected-changes': 'validation left changes outside the approved content',
  'repo-tampered': "validation changed git's refs, config, hooks or HEAD",
  'hook-tampered': 'a commit hook changed more than the one approved commit',
  'commit-hook': 'a commit hook refused the commit',
  'hooks-unwatchable': "git's folder holds more entries than a commit with hooks can watch",
  'unsafe-git-config': "the repository's git config would run a program or redirect the push",
  'unsafe-state-folder': "Patchsmith's state folder in `.git` is a link or not a folder",
  'unexpected-remote': "origin is not the workflow's repository",
  'not-a-repository': 'the `repo` folder is not a git repository',
  'git-command-failed': 'a git command failed',
  'git-config-unreadable': 'git cannot parse a config file (a bad line or value)',
  'git-lock-held': 'another git process holds a lock file',
  'git-fifo': 'git waited on a named pipe (fifo) in the repository that nothing writes to',
  'git-special-file':
    'a file git reads whole (config, include, attributes or ignore file) is a device, or a file that never ends, cannot be read or is over 16 MiB',
  'run-in-progress': 'another Patchsmith run holds the repository lock',
  'journal-unverified': "an earlier run's journal does not verify and there are signs of its work",
  'recovery-failed': 'an earlier run that died could not be fully rolled back',
  'dirty-worktree': 'uncommitted changes touch files the plan changes',
  'unmerged-paths': 'the repository has unmerged paths',
  'operation-in-progress': 'a merge, rebase, cherry-pick or similar is in progress',
  // Branches and the push
  'branch-name': 'the branch name is not a safe git branch name',
  'base-branch': 'the base branch is missing, or is the branch the run would create',
  exists: 'the branch already exists',
  diverged: 'the branch exists locally and on origin at different commits',
  'different-change': 'the branch exists with a different change than this run made',
  'no-remote': 'the repository has no origin',
  'remote-unreadable': 'origin could not be read',
  'remote-unreachable': 'origin could not be reached',
  'push-not-allowed': 'the token may not push',
  'push-hook-declined': 'a server hook declined the push',
  'push-refused': 'origin refused the push',
  'push-rejected-conflict': 'the branch changed on origin meanwhile',
  'base-moved-conflict': 'the change conflicts with what was pushed to its base during the run',
  'unsigned-commits-refused': 'origin requires verified commits (set `commit-signing: github`)',
  'signing-needs-token': '`commit-signing: github` has no GitHub token or repository',
  'signed-commit-failed': 'the GitHub API did not make the verified commit',
  'signed-commit-mismatch': 'the commit GitHub made is not the approved tree and message',
  // The rolling budget's ledger on origin
  'budget-ledger-busy': 'the budget ledger on origin changed under every write (too many runs)',
  'budget-ledger-unreadable': 'the budget ledger on origin is not a Patchsmith ledger',
  // Who may start a run, and follow-ups
  'unauthorized-actor': 'the user who started the run lacks `require-actor-permission`',
  'follow-up-needs-token': 'a follow-up has no GitHub token or repository',
  'follow-up-rounds-exhausted': 'a pull request has had `max-follow-up-rounds` rounds',
  'no-follow-up': 'there is nothing to follow up',
  'not-open': 'the pull request is not open',
  'not-patchsmith-pr': "the pull request is not Patchsmith's own",
  'not-on-pr-branch': "the pull request's branch is not checked out",
  'too-many-threads': 'a pull request has more review threads than are read',
  // Plan approval
  'approver-not-writer': 'the user who approved a plan lacks write permission',
  'approval-without-hash': 'a `/patchsmith approve` comment names no plan hash',
  'no-plan-to-approve': 'the issue has no plan posted by Patchsmith to approve',
  'plan-changed': 'the plan or the issue changed after the plan was approved',
  // Inputs from earlier runs and files
  'artifact-not-found': 'the artifact is not in the named run',
  'no-inputs': 'the artifact holds no input that is still missing',
  'no-repository': 'GITHUB_REPOSITORY is not set to find the artifact',
  'no-token': 'there is no token to download the artifact with',
  'no-result': 'there is no earlier result to resume from',
  'too-large': 'the earlier result is over the size limit',
  'not-a-result': 'the earlier result is not a Patchsmith result',
  'nothing-to-resume': 'the earlier run kept no attempt to resume from',
  'other-run': 'the earlier attempt was for another issue or branch',
  'base-commit-mismatch': 'a coding task was planned on another commit than the checkout',
  'agent-config-not-ignored': '.gitignore does not ignore agent-config/ in a code-commit project',
  'not-a-replay': 'a replay file is not a Patchsmith recording',
  'replay-setting': 'a replay file sets what only your own settings may (sandbox, paths, endpoint)',
  'replay-command': "a replay file's commands are not the ones your settings trust",
  'replay-base-missing': "a replay file's base commit is not in the repository",
  // Task files
  'id-format': 'a task id is not T followed by three or more digits',
  checkbox: 'a task line has a malformed checkbox',
  'duplicate-id': 'a task id is defined twice',
  'dependency-format': 'a task lists its dependencies in the wrong form',
  'unknown-dependency': 'a task depends on a task not in the file',
  cycle: 'a task depends on itself',
  'no-file': 'a task names no file to change'
} as const

export type RefusalRule = keyof typeof REFUSAL_RULES

/**
 * What is wrong with a model's reply (`details.rule` of INVALID_DIFF): the repair prompt names
 * it, and the model gets another try. Damage, not a refusal, so SECURITY.md does not list them.
 */
export type PatchErrorKind =
  | 'no-diff'
  | 'contaminated-diff'
  | 'unsupported-header'
  | 'unsupported-mode'
  | 'quoted-path'
  | 'path-mismatch'
  | 'no-hunks'
  | 'empty-hunk'
  | 'cut-off-reply'
  | 'elided-code'
  | 'syntax-error'
  | 'truncated-file'
  | 'too-many-files'
  | 'unplanned-file'
  | 'missing-file'
  | 'create-expected'
  | 'delete-refused'
  | 'hunk-not-found'
  | 'removed-line-missing'
  | 'ambiguous-hunk'
  | 'too-much-damage'
  | 'unanchored-hunk'
  | 'no-context'
  | 'weak-context'
  | 'overlapping-hunks'
  | 'no-edits'
  | 'bad-json'
  | 'range-out-of-bounds'
  | 'overlapping-edits'
  | 'old-text-mismatch'
  | 'search-not-found'
  | 'ambiguous-search'
  | 'empty-search'
  | 'fenced-content'
  | 'unterminated-block'
