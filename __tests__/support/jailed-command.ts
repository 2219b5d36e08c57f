/**
 * One validation command in a sandbox as a run starts it: the workflow's environment as
 * validation passes it on, a fresh masker, output kept up to `outputLimit`.
 */
import { validationEnv, type Sandbox, type TreeOverlay } from '../../src/sandbox/index.js'
import { SecretMasker } from '../../src/secrets/index.js'
import { runCommand } from '../../src/validation/index.js'

export function jailedCommand(
  command: string,
  where: { cwd: string; sandbox: Sandbox; overlay?: TreeOverlay; outputLimit?: number }
): ReturnType<typeof runCommand> {
  return runCommand(command, {
    cwd: where.cwd,
    timeoutMs: 60_000,
    outputLimit: where.outputLimit ?? 10_000,
    masker: new SecretMasker(),
    env: validationEnv(process.env),
    sandbox: where.sandbox,
    ...(where.overlay ? { overlay: where.overlay } : {})
  })
}
