/**
 * Files that steer execution, CI, review or other agents. The agent may change them only when a
 * maintainer opts in with `allow-protected-paths`; each class names why it is protected. The
 * classes and their globs are data, in protected-runners.ts, protected-installers.ts and
 * protected-structure.ts (dot-folders; new programs, judged by content in the edit guard).
 */
import type { ProtectedGroup } from './protected-classes.js'
import { INSTALLER_GROUPS } from './protected-installers.js'
import { RUNNER_GROUPS } from './protected-runners.js'
import { STRUCTURE_GROUPS } from './protected-structure.js'

export type { ProtectedGroup } from './protected-classes.js'

// Order matters: the first class whose globs match names the path.
export const PROTECTED_GROUPS: readonly ProtectedGroup[] = [
  ...RUNNER_GROUPS,
  ...INSTALLER_GROUPS,
  ...STRUCTURE_GROUPS
]

/** Classes that refuse the model's edits only, not files validation leaves (editsOnly). */
export const EDITS_ONLY_GROUPS: ReadonlySet<string> = new Set(
  PROTECTED_GROUPS.filter((group) => group.editsOnly).map((group) => group.name)
)

/** Manifests whose execution-relevant fields are protected; their other fields may change. */
export const MANIFEST_GLOB = '**/package.json'
export const MANIFEST_PROTECTED_FIELDS = [
  'scripts',
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
  'bundleDependencies',
  'bundledDependencies',
  'overrides',
  'resolutions',
  'pnpm',
  'workspaces',
  'bin',
  'config',
  'packageManager',
  // hook managers configured inside the manifest run on the next commit or install
  'husky',
  'simple-git-hooks',
  'lint-staged',
  'pre-commit',
  'gitHooks',
  'ghooks'
] as const
