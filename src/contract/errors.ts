import type { AgentError, ErrorCode } from './schemas.js'
import { worldFailure } from './world-failures.js'

export { worldFailure }

import type { PatchErrorKind, RefusalRule } from './refusal-rules.js'

export type ErrorDetails = Record<string, unknown> & { rule?: RefusalRule | PatchErrorKind }

/** A failure the run can explain: one contract error code, a message a maintainer can act on. */
export class PatchsmithError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    readonly recoverable = false
  ) {
    super(message)
    this.name = new.target.name
  }

  toAgentError(): AgentError {
    const error: AgentError = {
      code: this.code,
      message: this.message,
      recoverable: this.recoverable
    }
    if (Object.keys(this.details).length > 0) error.details = this.details
    return error
  }
}

export class GitConflictError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails, recoverable = true) {
    super('GIT_CONFLICT', message, details, recoverable)
  }
}

export class ValidationFailedError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails) {
    super('VALIDATION_FAILED', message, details, false)
  }
}

export class PermissionDeniedError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails) {
    super('PERMISSION_DENIED', message, details, false)
  }
}

export class InvalidDiffError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails) {
    super('INVALID_DIFF', message, details, true)
  }
}

export class BranchExistsError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails) {
    super('BRANCH_EXISTS', message, details, false)
  }
}

export class SecurityViolationError extends PatchsmithError {
  constructor(message: string, details: ErrorDetails & { rule: RefusalRule }) {
    super('SECURITY_VIOLATION', message, details, false)
  }
}

export class InvalidInputError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails) {
    super('INVALID_INPUT', message, details, false)
  }
}

export class ModelError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails) {
    super('MODEL_ERROR', message, details, true)
  }
}

export class TimeoutError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails) {
    super('TIMEOUT', message, details, true)
  }
}

export class TokenBudgetExceededError extends PatchsmithError {
  constructor(message: string, details?: ErrorDetails) {
    super('TOKEN_BUDGET_EXCEEDED', message, details, false)
  }
}

/** Any thrown value as a contract error; unknown failures are reported, never swallowed. */
/** The run was stopped by SIGINT, SIGTERM or SIGHUP; everything it did is rolled back. */
export class CancelledError extends PatchsmithError {
  constructor(signal: string, when: string) {
    super(
      'CANCELLED',
      `The run was cancelled (${signal}) ${when}; it was stopped and rolled back, so nothing was committed or pushed.`,
      { signal },
      true
    )
  }
}

export function toAgentError(error: unknown, fallback: ErrorCode = 'INTERNAL_ERROR'): AgentError {
  if (error instanceof PatchsmithError) return error.toAgentError()
  const world = worldFailure(error)
  if (world) return world
  const message = error instanceof Error ? error.message : String(error)
  return { code: fallback, message: `Unexpected failure: ${message}`, recoverable: false }
}
