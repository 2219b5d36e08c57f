import type { CodeAgentOutput } from '../contract/index.js'

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')
const code = (text: string) => `\`${text.replace(/`/g, "'")}\``

/** The job summary: what happened at a glance, as Markdown. */
export function summaryMarkdown(response: CodeAgentOutput, issueNumber?: number): string {
  const lines: string[] = []
  const issue = issueNumber ? ` for issue #${issueNumber}` : ''
  if (response.success) {
    lines.push(`## Patchsmith: committed${issue}`, '')
    for (const commit of response.data ?? []) {
      lines.push('| | |', '|---|---|')
      lines.push(`| Branch | ${code(commit.branch)} |`)
      lines.push(`| Commit | ${commit.sha ? code(commit.sha) : 'dry run: not committed'} |`)
      lines.push(`| Message | ${cell(commit.message.split('\n')[0] ?? '')} |`)
      lines.push(`| Files | ${commit.files_changed.map(code).join(', ')} |`, '')
      if (commit.validation_results.length > 0) {
        lines.push('| Validation | Exit | Time |', '|---|---|---|')
        for (const result of commit.validation_results) {
          lines.push(`| ${code(result.command)} | ${result.exit_code} | ${result.duration_ms} ms |`)
        }
        lines.push('')
      }
    }
  } else {
    const error = response.error
    lines.push(`## Patchsmith: failed${issue}`, '')
    lines.push('| | |', '|---|---|')
    lines.push(`| Error | ${code(error?.code ?? 'UNKNOWN')} |`)
    lines.push(`| Message | ${cell(error?.message ?? '')} |`)
    lines.push(`| Recoverable | ${error?.recoverable ? 'yes' : 'no'} |`, '')
    const stderr = error?.details?.stderr
    if (typeof stderr === 'string' && stderr.trim()) {
      lines.push(
        '<details><summary>Command output</summary>',
        '',
        '```text',
        stderr.replace(/```/g, "'''"),
        '```',
        '',
        '</details>',
        ''
      )
    }
  }
  const metrics = response.metrics ?? {}
  const figures = ['attempts', 'model_calls', 'prompt_tokens', 'completion_tokens', 'duration_ms']
    .filter((key) => key in metrics)
    .map((key) => `${key.replace(/_/g, ' ')}: ${String(metrics[key])}`)
  if (figures.length > 0) lines.push(`<sub>${figures.join(' · ')}</sub>`, '')
  return lines.join('\n')
}
