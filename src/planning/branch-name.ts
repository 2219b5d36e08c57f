const MAX_SLUG = 40

/** `fix/<n>-<slug>` from the issue title: lower case, `[a-z0-9-]` only, never empty. */
export function planBranchName(issueNumber: number, title: string): string {
  const words = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  let slug = words.slice(0, MAX_SLUG)
  if (words.length > MAX_SLUG && slug.includes('-')) slug = slug.slice(0, slug.lastIndexOf('-'))
  slug = slug.replace(/-+$/, '')
  return slug ? `fix/${issueNumber}-${slug}` : `fix/${issueNumber}`
}
