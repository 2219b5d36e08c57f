import type { RunConfig } from '../../config.js'
import { SecurityViolationError } from '../../contract/index.js'
import type { AgentEnvironment, RunMode } from '../../engine/index.js'
import { assertActorAllowed, PERMISSION_LEVELS } from '../../policy/index.js'
import type { ApprovalRequest } from './approval-request.js'
import { approvedPlan } from './approved-plan.js'

export { approvalRequest } from './approval-request.js'

/**
 * A run started by a writer's `/patchsmith approve <hash>` (plan-approval: required): its input
 * is the plan the hash names, as Patchsmith's plan comment holds it now; or by a writer adding
 * the approval label: the plan of Patchsmith's newest plan comment as it was then. The engine
 * runs it like any plan, and refuses it if it no longer has that hash. Only a writer approves.
 */
export function approvedPlanMode(
  request: ApprovalRequest,
  config: RunConfig,
  env: AgentEnvironment
): RunMode {
  return {
    loadInput: async () => {
      await assertApprover(request, config, env)
      const { input, hash } = await approvedPlan(request, {
        token: config.githubToken,
        repository: env.repository,
        client: { apiUrl: env.apiUrl, warn: (message) => env.logger.warn(message) }
      })
      const by = request.label ? `${request.by} (label ${request.label.name})` : request.by
      return { input, approved: { hash, by } }
    }
  }
}

/** Write permission at least (more when require-actor-permission asks more); bots never approve. */
async function assertApprover(
  request: ApprovalRequest,
  config: RunConfig,
  env: AgentEnvironment
): Promise<void> {
  if (!request.by)
    throw new SecurityViolationError(
      'Refused the approval of the plan: the event names no sender whose permission could be checked.',
      { rule: 'approver-not-writer' }
    )
  const rank = (level: string) => PERMISSION_LEVELS.indexOf(level as 'write')
  const required =
    rank(config.requireActorPermission) > rank('write') ? config.requireActorPermission : 'write'
  try {
    await assertActorAllowed({
      eventPath: env.eventPath,
      repository: env.repository,
      apiUrl: env.apiUrl,
      token: config.githubToken,
      required,
      allowedBots: []
    })
  } catch (error) {
    if (!(error instanceof SecurityViolationError)) throw error
    throw new SecurityViolationError(
      `Refused the approval of the plan: ${error.message.replace(/^Refused to act for /, 'it came from ')} Only a person with write permission approves a plan.`,
      { ...error.details, rule: 'approver-not-writer', approver: request.by }
    )
  }
}
