import { fence, renderTemplate, type ChatMessage } from '../../model/index.js'
import type { CodeCommitProject } from './project.js'

/**
 * Seed code-commit's prompts, their parts in its order. Initial: project structure, code
 * modification instructions, initial query (system); then the query and the codebase.
 */
export function initialMessages(project: CodeCommitProject): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt('code-commit-initial') },
    { role: 'user', content: [queryPart(project), codebasePart(project)].join('\n\n') }
  ]
}

/**
 * Repair: project structure, code modification instructions, repair query (system); then the
 * build.sh output, the query, the codebase (both as they were), and the latest replacement of
 * each file replaced so far.
 */
export function repairMessages(
  project: CodeCommitProject,
  buildOutput: string,
  replaced: ReadonlyMap<string, string | null>
): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt('code-commit-repair') },
    {
      role: 'user',
      content: [
        `[build.sh output]\n${fence(buildOutput)}`,
        queryPart(project),
        codebasePart(project),
        `[file replacements]\n${fileReplacements(replaced)}`
      ].join('\n\n')
    }
  ]
}

/** `--- FILE REPLACEMENT path ---` with the data, or `--- FILE REMOVED path ---`. */
export function fileReplacements(replaced: ReadonlyMap<string, string | null>): string {
  return [...replaced]
    .map(([path, content]) =>
      content === null
        ? `--- FILE REMOVED ${path} ---\n`
        : `--- FILE REPLACEMENT ${path} ---\n${content}${content.endsWith('\n') ? '' : '\n'}`
    )
    .join('')
}

function systemPrompt(query: string): string {
  return ['code-commit-project', 'code-commit-instructions', query]
    .map((name) => renderTemplate(name, {}).trim())
    .join('\n\n')
}

function queryPart(project: CodeCommitProject): string {
  return `[query]\n${fence(project.query)}`
}

function codebasePart(project: CodeCommitProject): string {
  return `[codebase]\n${fence(project.rollup)}`
}
