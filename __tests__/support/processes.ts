import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** Host processes whose command line holds `marker`, zombies aside. */
export function processesRunning(marker: string): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
        return state !== 'Z' && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)
      } catch {
        return false
      }
    })
}

/** Host processes working in `dir` or below it, zombies aside. */
export function processesIn(dir: string): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
        const where = readlinkSync(`/proc/${pid}/cwd`)
        return state !== 'Z' && (where === dir || where.startsWith(`${dir}/`))
      } catch {
        return false
      }
    })
}
