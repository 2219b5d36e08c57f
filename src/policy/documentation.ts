// What a docs-only change touches: prose files, or anything under a docs folder.
const DOCUMENTATION = /(^|\/)docs?\/|\.(md|mdx|markdown|rst|adoc|txt)$/i

/** Every path is documentation (and there is one): a docs branch, and no behaviour to reproduce. */
export function onlyDocumentation(paths: readonly string[]): boolean {
  return paths.length > 0 && paths.every((path) => DOCUMENTATION.test(path))
}
