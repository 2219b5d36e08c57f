export { Git, GitCommandError } from './git.js'
export {
  isObjectRevision,
  type GitObject,
  type ObjectReader,
  type TreeEntry
} from './object-reader.js'
export type { GitOutput, BranchCommit } from './git.js'
export { ChangeBranch } from './change-branch.js'
export { WorkBranch, type WorkBranchOptions } from './work-branch.js'
export type { ChangeBranchOptions, CommitRequest, MadeCommit } from './change-branch.js'
export type { BranchPublisher, PublishRequest } from './branch-publisher.js'
export { pushAuth } from './push-auth.js'
export { pushError } from './remote-errors.js'
export type { PushAuth } from './push-auth.js'
export { patchId } from './patch-id.js'
export { commitGroups, splitPatch, STEPS_FOR_SPLIT } from './commit-plan.js'
export type { CommitGroup } from './commit-plan.js'
export { parseStatus, WORKTREE_SCAN } from './status.js'
export type { RepoStatus } from './status.js'
export { FALLBACK_IDENTITY } from './identity.js'
export {
  commitType,
  commitScope,
  templateSubject,
  acceptSubject,
  commitMessage,
  PATCHSMITH_TRAILER,
  withRunTrailer
} from './commit-message.js'
export type { CommitType } from './commit-message.js'
export { WorktreeFiles, MAX_FILE_BYTES } from './worktree-files.js'
export { asStoredByGit } from './line-endings.js'
export { RepoIntegrity } from './repo-integrity.js'
export { gitDirs } from './git-dirs.js'
export { gitIncludedPaths } from './config-includes.js'
export { RunLock } from './run-lock.js'
export { RunJournal, type JournalRecord } from './run-journal.js'
export { AttemptFile } from './attempt-file.js'
export { recoverRepository, type Recovery } from './journal-recovery.js'
export {
  leftoverSigns,
  unverifiedJournalMessage,
  type UnverifiedJournal
} from './unverified-journal.js'
export { journalKeyFolder, loadJournalKey } from './journal-key.js'
export { RemoteRefFile, type RefFileVersion } from './remote-ref-file.js'
