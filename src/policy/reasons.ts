import type { ErrorCode, RefusalRule } from '../contract/index.js'

/**
 * SECURITY.md's reason names (E_*) and where each lands in the contract: the error code, and
 * the `error.details.rule` values that carry the reason.
 */
export const SECURITY_REASONS = {
  E_INPUT_TOO_LARGE: { code: 'SECURITY_VIOLATION', rules: ['input-too-large', 'path-too-long'] },
  E_PLAN_SCHEMA: {
    code: 'INVALID_INPUT',
    rules: ['too-deep', 'forbidden-key', 'parse-error', 'input-too-large']
  },
  E_PATCH_PARSE: { code: 'SECURITY_VIOLATION', rules: ['patch-parse'] },
  E_PATCH_MODE: { code: 'SECURITY_VIOLATION', rules: ['patch-mode'] },
  E_PATCH_BINARY: { code: 'SECURITY_VIOLATION', rules: ['patch-binary'] },
  E_PATCH_COPY_RENAME: { code: 'SECURITY_VIOLATION', rules: ['patch-copy-rename'] },
  E_PATCH_APPLY: { code: 'INVALID_DIFF', rules: ['git-apply-check'] },
  E_PATH_TRAVERSAL: {
    code: 'SECURITY_VIOLATION',
    rules: ['path-traversal', 'non-canonical-path', 'empty-path']
  },
  E_PATH_ABSOLUTE: { code: 'SECURITY_VIOLATION', rules: ['absolute-path'] },
  E_PATH_CHARSET: { code: 'SECURITY_VIOLATION', rules: ['path-charset'] },
  E_PATH_GITDIR: { code: 'SECURITY_VIOLATION', rules: ['git-directory'] },
  E_PATH_SYMLINK: { code: 'SECURITY_VIOLATION', rules: ['symlink', 'not-a-file'] },
  E_PATH_BLOCKED: { code: 'SECURITY_VIOLATION', rules: ['blocked-path', 'gitignored'] },
  E_PATH_PROTECTED: { code: 'SECURITY_VIOLATION', rules: ['protected-path'] },
  E_OUTSIDE_PLAN: { code: 'SECURITY_VIOLATION', rules: ['outside-plan'] },
  E_UNICODE: { code: 'SECURITY_VIOLATION', rules: ['invisible-unicode', 'path-charset'] },
  E_SECRET_DETECTED: {
    code: 'SECURITY_VIOLATION',
    rules: ['secret-detected', 'secret-in-change']
  },
  E_BRANCH_NAME: { code: 'INVALID_INPUT', rules: ['branch-name', 'base-branch'] },
  E_CMD_NOT_ALLOWED: { code: 'SECURITY_VIOLATION', rules: ['command-not-allowed'] },
  E_CMD_TIMEOUT: { code: 'VALIDATION_FAILED', rules: [] },
  E_CMD_FAILED: { code: 'VALIDATION_FAILED', rules: [] },
  E_REPO_TAMPERED: { code: 'SECURITY_VIOLATION', rules: ['repo-tampered'] },
  E_UNEXPECTED_CHANGES: { code: 'SECURITY_VIOLATION', rules: ['unexpected-changes'] },
  E_PUSH_FAILED: { code: 'PERMISSION_DENIED', rules: [] }
} as const satisfies Record<string, { code: ErrorCode; rules: readonly RefusalRule[] }>
