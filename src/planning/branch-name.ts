import { onlyDocumentation } from '../policy/index.js'

const MAX_SLUG = 40

/**
 * `fix/<n>-<slug>` from the issue title (`docs/<n>-<slug>` when every planned path is
 * documentation): lower case, `[a-z0-9-]` only, never empty.
 */
export function planBranchName(
  issueNumber: number,
  title: string,
  paths: readonly string[] = []
): string {
  const kind = onlyDocumentation(paths) ? 'docs' : 'fix'
  const words = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  let slug = words.slice(0, MAX_SLUG)
  if (words.length > MAX_SLUG && slug.includes('-')) slug = slug.slice(0, slug.lastIndexOf('-'))
  slug = slug.replace(/-+$/, '')
  return slug ? `${kind}/${issueNumber}-${slug}` : `${kind}/${issueNumber}`
}
