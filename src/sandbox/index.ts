export { Sandbox, SANDBOX_MODES, type SandboxMode } from './sandbox.js'
export { BACKENDS, shellQuote, unshareSpec, type BackendName, type SpawnSpec } from './backends.js'
export { hiddenFolders, type SandboxLayout } from './layout.js'
export { validationEnv, FORBIDDEN_EXTRA_NAME } from './environment.js'
