export {
  Sandbox,
  SANDBOX_MODES,
  NETWORK_MODES,
  type NetworkMode,
  type SandboxOptions,
  type SpawnOptions
} from './sandbox.js'
export { BACKENDS, backendNamed, installAdvice, type BackendName } from './backends.js'
export type { JailJob, SandboxBackend } from './backend.js'
export { shellQuote, type Caller, type SpawnSpec } from './jail-command.js'
export { JAIL_SETUP_FAILED, REMOUNT_FAILED, unshareSpec } from './unshare.js'
export { bubblewrapSpec } from './bubblewrap.js'
export { jailPlan, MAX_TASKS, type JailPlan } from './jail-plan.js'
export { gitFileCovers, type GitFileCover } from './git-config.js'
export { jailLayout, type SandboxLayout } from './layout.js'
export { gitFoldersAt } from './host-view.js'
export { validationEnv, FORBIDDEN_EXTRA_NAME } from './environment.js'
export {
  diesWithRun,
  processStartTime,
  runProcesses,
  runSupervised,
  supervised,
  type CollectedOutput,
  type Program,
  type RunProcess
} from './lifetime.js'
export { stopLeftovers } from './leftovers.js'
export { TreeOverlay } from './overlay.js'
export type { CarryRule, OverlayRecord } from './overlay-merge.js'
