export { PathPolicy, BUILTIN_BLOCKED_GLOBS } from './path-policy.js'
export type { PathViolation, PathPolicyOptions } from './path-policy.js'
export { assertCommandsAllowed } from './command-policy.js'
