/**
 * Files that steer execution, CI, review or other agents. The agent may change them only when a
 * maintainer opts in with `allow-protected-paths`; each class names why it is protected. The
 * classes and their globs are data, in protected-runners.ts and protected-installers.ts.
 */
import type { ProtectedGroup } from './protected-classes.js'
import { INSTALLER_GROUPS } from './protected-installers.js'
import { RUNNER_GROUPS } from './protected-runners.js'

export type { ProtectedGroup } from './protected-classes.js'

// Order matters: the first class whose globs match names the path.
export const PROTECTED_GROUPS: readonly ProtectedGroup[] = [...RUNNER_GROUPS, ...INSTALLER_GROUPS]

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
