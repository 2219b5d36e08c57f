import { readFileSync } from 'node:fs'

/**
 * When a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid
 * it names one process for the life of the machine, so a reused pid is told apart. Undefined
 * without /proc (macOS) or when the process is gone.
 */
export function processStartTime(pid: number): string | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (the state), so field 22 is fields[19].
  const start = fields[19]
  return start && /^\d+$/.test(start) ? start : undefined
}
