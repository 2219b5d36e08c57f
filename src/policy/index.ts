export {
  PathPolicy,
  BUILTIN_BLOCKED_GLOBS,
  MAX_PATH_CHARS,
  protectedGroup,
  violationError
} from './path-policy.js'
export type { PathViolation, PathPolicyOptions } from './path-policy.js'
export { PROTECTED_GROUPS, MANIFEST_PROTECTED_FIELDS } from './protected-paths.js'
export { INSTRUCTION_FILES, NEAREST_INSTRUCTIONS } from './agent-instructions.js'
export { NEW_PROGRAM } from './protected-structure.js'
export { assertCommandsAllowed } from './command-policy.js'
export { diffPaths, guardReplyClaims } from './reply-claims.js'
export type { ClaimOptions } from './reply-claims.js'
export { assertRepoPaths, ignoredPaths, symlinkOnTheWay } from './repo-paths.js'
export { assertPlainFiles, twinPaths } from './plan-files.js'
export type { GitRunner } from './repo-paths.js'
export {
  guardEdits,
  MAX_EDIT_FILES,
  MAX_EDIT_FILE_BYTES,
  MAX_EDIT_TOTAL_BYTES
} from './edit-guard.js'
export type { GuardedEdit, EditGuardOptions } from './edit-guard.js'
export {
  assertCommittedAsApproved,
  assertExactChanges,
  assertNoSecretInChange
} from './change-set.js'
export { repoFolder, ValidationWatch, type TouchedPaths } from './validation-watch.js'
export { TreeSnapshot } from './tree-snapshot.js'
export { DEFAULT_UNICODE_TEXT_GLOBS, unicodeTextMatcher } from './unicode-text.js'
export { SECURITY_REASONS } from './reasons.js'
export { assertActorAllowed, PERMISSION_LEVELS } from './actor-policy.js'
export type { ActorCheck, PermissionLevel } from './actor-policy.js'
export { onlyDocumentation } from './documentation.js'
