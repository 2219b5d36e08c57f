/*
 * One change's life on a branch, in order: the preflight, the branch prepared from the base,
 * patches applied and undone, the commit from approved content, a base that moved on origin,
 * the one publish (a plain push or the verified commits) and the rollback. Below the attempt
 * floor (src/agent), above the run's crash state (src/run-state) and the door to git (src/git).
 */
export { ChangeBranch } from './change-branch.js'
export type { ChangeBranchOptions, CommitRequest, MadeCommit } from './change-branch.js'
export { WorkBranch, type ContinuedBranch } from './work-branch.js'
// The messages a change's commit carries, for the modes that write or read them.
export { commitScope, PATCHSMITH_TRAILER } from '../git/index.js'
