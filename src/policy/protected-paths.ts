/**
 * Files that steer execution, CI, review or other agents. The agent may change them only when a
 * maintainer opts in with `allow-protected-paths`; each class names why it is protected. The
 * classes and their globs are data, in protected-classes.ts.
 */
export { PROTECTED_GROUPS, type ProtectedGroup } from './protected-classes.js'

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
