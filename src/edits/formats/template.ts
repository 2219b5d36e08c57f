import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A format's draft prompt: `<name>.md` in the format's own folder. */
export interface FormatTemplate {
  name: string
  /**
   * The folder the template is in, in the sources. The bundle has no such folder: the bundle
   * script copies every format's template into `dist/prompts/` (from this registry), where the
   * loader looks next.
   */
  dir: string
}

/** The template `<name>.md` beside the module at `moduleUrl` (pass `import.meta.url`). */
export function templateBeside(moduleUrl: string, name: string): FormatTemplate {
  return { name, dir: dirname(fileURLToPath(moduleUrl)) }
}
