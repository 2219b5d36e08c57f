import { InvalidInputError } from '../../contract/index.js'
import { githubClient, type GitHubClientOptions } from '../../github/index.js'

/** The issues of a batch, in the order they are fixed. */
interface IssueQuery {
  token?: string
  repository?: string
  client?: GitHubClientOptions
}

const MAX_ISSUES = 20

/**
 * The `issues` setting: numbers (`12, 15, 18`, in that order) or `label:NAME` (the open issues
 * with that label, oldest first, pull requests left out).
 */
export async function batchIssues(setting: string, query: IssueQuery): Promise<number[]> {
  const text = setting.trim()
  const label = /^label:\s*(\S.*)$/i.exec(text)
  const numbers = label ? await labelled(label[1]!.trim(), query) : listed(text)
  if (numbers.length === 0)
    throw new InvalidInputError(`Setting "issues": "${text}" names no issue.`, { field: 'issues' })
  if (numbers.length > MAX_ISSUES)
    throw new InvalidInputError(
      `Setting "issues": ${numbers.length} issues; a batch takes at most ${MAX_ISSUES}.`,
      { field: 'issues' }
    )
  return numbers
}

function listed(text: string): number[] {
  const parts = text.split(/[\s,]+/).filter(Boolean)
  const numbers = parts.map((part) => /^#?(\d+)$/.exec(part)?.[1])
  const bad = parts.find((_part, i) => !numbers[i] || Number(numbers[i]) < 1)
  if (bad !== undefined)
    throw new InvalidInputError(
      `Setting "issues": "${bad}" is not an issue number; write numbers (12, 15, 18) or label:NAME.`,
      { field: 'issues' }
    )
  return [...new Set(numbers.map(Number))]
}

async function labelled(label: string, query: IssueQuery): Promise<number[]> {
  const [owner = '', repo = ''] = (query.repository ?? '').split('/')
  if (!query.token || !owner || !repo)
    throw new InvalidInputError(
      `Setting "issues": label:${label} needs github-token and GITHUB_REPOSITORY.`,
      { field: 'issues' }
    )
  const octokit = await githubClient(query.token, query.client)
  const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
    owner,
    repo,
    labels: label,
    state: 'open',
    sort: 'created',
    direction: 'asc',
    per_page: 100
  })
  return issues.filter((issue) => !issue.pull_request).map((issue) => issue.number)
}
