import type { SandboxBackend } from './backend.js'
import { bubblewrap } from './bubblewrap.js'
import { sudoUnshare, unshare } from './unshare.js'

/**
 * The registry, in order of preference: bubblewrap where installed, else util-linux `unshare` as
 * root or via sudo.
 */
const REGISTRY = [bubblewrap, unshare, sudoUnshare] as const

export type BackendName = (typeof REGISTRY)[number]['name']
export const BACKENDS: readonly BackendName[] = REGISTRY.map((backend) => backend.name)

export function backendNamed(name: BackendName): SandboxBackend<BackendName> {
  return REGISTRY.find((backend) => backend.name === name)!
}

/** How to get a sandbox working on a machine with none: each backend's own advice, in order. */
export function installAdvice(): string {
  return REGISTRY.flatMap((backend) => (backend.install ? [backend.install] : [])).join(', ')
}
