import type { Issue } from '../contract/index.js'
import type { ChatMessage } from './chat.js'
import { renderTemplate } from './prompt-templates.js'
import { sanitizeTitle } from './untrusted-text.js'

interface CommitPromptInput {
  issue: Issue
  type: string
  scope: string
  files: readonly string[]
  diff: string
}

export function commitMessages(input: CommitPromptInput): ChatMessage[] {
  const content = renderTemplate('commit-message', {
    issue_number: input.issue.number,
    issue_title: sanitizeTitle(input.issue.title),
    type: input.type,
    scope: input.scope,
    files: input.files.join(', '),
    diff: input.diff.length > 6_000 ? `${input.diff.slice(0, 6_000)}\n[… truncated]` : input.diff
  })
  return [{ role: 'user', content }]
}
