export { PathPolicy, BUILTIN_BLOCKED_GLOBS, protectedGroup } from './path-policy.js'
export { PROTECTED_GROUPS } from './protected-paths.js'
export { INSTRUCTION_FILES, NEAREST_INSTRUCTIONS } from './agent-instructions.js'
export { NEW_PROGRAM } from './protected-structure.js'
export { assertCommandsAllowed } from './command-policy.js'
export { diffPaths, guardReplyClaims } from './reply-claims.js'
export { assertRepoPaths, symlinkOnTheWay } from './repo-paths.js'
export { assertPlainFiles, twinPaths } from './plan-files.js'
export type { GitRunner } from './repo-paths.js'
export { guardEdits } from './edit-guard.js'
export type { GuardedEdit } from './edit-guard.js'
export {
  assertCommittedAsApproved,
  assertExactChanges,
  assertNoSecretInChange
} from './change-set.js'
export { repoFolder, ValidationWatch } from './validation-watch.js'
export { TreeSnapshot } from './tree-snapshot.js'
export { regularFiles } from './tree-find.js'
export { unicodeTextMatcher } from './unicode-text.js'
export { SECURITY_REASONS } from './reasons.js'
export { assertActorAllowed, PERMISSION_LEVELS } from './actor-policy.js'
export { onlyDocumentation } from './documentation.js'
