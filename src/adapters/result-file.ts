import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** An adapter's own contract output, in place of the Commit[] result at the same path. */
export function writeJsonFile(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`)
}
