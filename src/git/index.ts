export { Git, GitCommandError } from './git.js'
export type { GitOutput } from './git.js'
export { ChangeBranch } from './change-branch.js'
export { pushAuth } from './push-auth.js'
export type { PushAuth } from './push-auth.js'
export {
  commitType,
  commitScope,
  templateSubject,
  acceptSubject,
  commitMessage
} from './commit-message.js'
export type { CommitType } from './commit-message.js'
export { WorktreeFiles, MAX_FILE_BYTES } from './worktree-files.js'
