/*
 * The door to git: running it sealed (its own program, environment and config), reading
 * objects and output, the remote's errors, and commit messages. Nothing here knows of a
 * change's life on a branch (src/change) or of a run's crash state (src/run-state).
 */
export { Git, GitCommandError } from './git.js'
export type { GitOutput, BranchCommit, CommitOptions } from './git.js'
export {
  isObjectRevision,
  blobId,
  objectId,
  type ObjectReader,
  type TreeEntry
} from './object-reader.js'
export type { BranchPublisher, PublishRequest } from './branch-publisher.js'
export { pushAuth } from './push-auth.js'
export type { PushAuth } from './push-auth.js'
export { pushError, pushPermissionError, remoteReadError } from './remote-errors.js'
export { patchId } from './patch-id.js'
export { commitGroups, splitPatch } from './commit-plan.js'
export type { CommitGroup } from './commit-plan.js'
export { WORKTREE_SCAN } from './status.js'
export type { RepoStatus } from './status.js'
export { FALLBACK_IDENTITY, committerIdent } from './identity.js'
export {
  commitType,
  commitScope,
  templateSubject,
  acceptSubject,
  commitMessage,
  PATCHSMITH_TRAILER,
  withRunTrailer,
  withPatchsmithTrailer,
  withSignoff,
  printableMessage
} from './commit-message.js'
export { WorktreeFiles, walkPath } from './worktree-files.js'
export { nulFields, restoreWorkTree, unstagedPaths, untrackedPaths } from './worktree-settle.js'
export { asStoredByGit } from './line-endings.js'
export { RepoIntegrity } from './repo-integrity.js'
export { gitDirs } from './git-dirs.js'
export { gitIncludedPaths } from './config-includes.js'
export { RemoteRefFile, type RefFileVersion } from './remote-ref-file.js'
export { gitProgram, NO_HOOKS, SAFE_CONFIG } from './git-seal.js'
export { readRegularFile } from './regular-file.js'
