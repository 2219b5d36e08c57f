/**
 * The protected set as data: each class of file that runs code, decides what is installed, or
 * steers CI, review or an agent, with the reason a refusal shows. The first class whose globs
 * match names the path (more specific classes come first). Globs match with `dot` and `nocase`;
 * `**∕name` matches at any depth. `allow-protected-paths` opens a path on purpose.
 *
 * Ordinary source files stay editable: `src/config.ts` is not a runner config (the runner
 * configs are `*.config.{js,ts,…}` and `.*rc.{js,…}` by file name); Makefiles and other build
 * files are protected because a recipe is a shell command CI and every developer run, and a
 * fix belongs in the source the recipe builds (`allow-protected-paths: Makefile` opens it).
 */
export interface ProtectedGroup {
  name: string
  why: string
  globs: readonly string[]
  /**
   * Refuses what the model writes, not files validation leaves there (a class by structure
   * holds tools' caches, such as .pytest_cache or .gradle, far more often than an attack).
   */
  editsOnly?: boolean
}
