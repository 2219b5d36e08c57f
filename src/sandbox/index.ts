export { Sandbox, SANDBOX_MODES, NETWORK_MODES, type NetworkMode } from './sandbox.js'
export { BACKENDS, backendNamed, installAdvice, type BackendName } from './backends.js'
export type { JailJob } from './backend.js'
export { shellQuote, startedInJail, startRaced } from './jail-command.js'
export { JAIL_SETUP_FAILED, REMOUNT_FAILED, unshareSpec } from './unshare.js'
export { bubblewrapSpec } from './bubblewrap.js'
export { jailPlan, socketCover, type JailPlan } from './jail-plan.js'
export { gitFileCovers } from './git-config.js'
export { contains, jailLayout, type SandboxLayout } from './layout.js'
export { gitFoldersAt } from './host-view.js'
export { validationEnv, FORBIDDEN_EXTRA_NAME } from './environment.js'
export {
  diesWithRun,
  processStartTime,
  runProcesses,
  runSupervised,
  collectedOutput,
  supervised,
  type CollectedOutput
} from './lifetime.js'
export { stopLeftovers } from './leftovers.js'
export {
  distrustCheckout,
  distrusted,
  hostPath,
  trustedOnHost,
  trustedProgramValue
} from './host-trust.js'
export { TreeOverlay } from './overlay.js'
export type { CarryRule } from './overlay-merge.js'
export { multiLinkedIn, separate } from './tree-hard-links.js'
