import { getOctokit } from '@actions/github'
import type { AgentError } from '../contract/index.js'

export interface IssueFeedbackOptions {
  token: string
  /** `owner/repo` */
  repository: string
  issueNumber: number
  label: string
}

const MAX_COMMENT = 60_000

/** The failure comment, with untrusted text kept inside a code block and mentions defused. */
export function failureComment(error: AgentError): string {
  const output = typeof error.details?.stderr === 'string' ? error.details.stderr : ''
  const parts = [
    '### Patchsmith could not fix this automatically',
    '',
    `**Error:** \`${error.code}\`${error.recoverable ? ' (may succeed on a rerun)' : ''}`,
    '',
    '```text',
    defuse(error.message),
    '```'
  ]
  if (output.trim())
    parts.push(
      '',
      '<details><summary>Command output</summary>',
      '',
      '```text',
      defuse(output),
      '```',
      '',
      '</details>'
    )
  const body = parts.join('\n')
  return body.length > MAX_COMMENT ? `${body.slice(0, MAX_COMMENT)}\n\`\`\`\n[truncated]` : body
}

function defuse(text: string): string {
  return text.replace(/```/g, "'''").replace(/@(?=[A-Za-z0-9])/g, '@\u200b')
}

/** Posts the failure comment and label on the issue; reports what it could not do. */
export async function postFailureFeedback(
  options: IssueFeedbackOptions,
  body: string
): Promise<string[]> {
  const [owner, repo] = options.repository.split('/') as [string, string]
  const octokit = getOctokit(options.token)
  const problems: string[] = []
  try {
    await octokit.rest.issues.createComment({
      owner,
      repo,
      issue_number: options.issueNumber,
      body
    })
  } catch (error) {
    problems.push(`comment: ${(error as Error).message}`)
  }
  if (options.label) {
    try {
      await octokit.rest.issues.addLabels({
        owner,
        repo,
        issue_number: options.issueNumber,
        labels: [options.label]
      })
    } catch (error) {
      problems.push(`label: ${(error as Error).message}`)
    }
  }
  return problems
}
