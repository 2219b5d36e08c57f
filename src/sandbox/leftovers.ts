import { readdirSync } from 'node:fs'
import { procStat, type RunProcess } from './lifetime.js'

const WAIT_MS = 5_000

/**
 * Stops what a dead run's recorded process groups still hold, and only what can be shown to be
 * theirs: a leader whose pid and start time both match, and members of a group whose leader is
 * gone (a group id is not given out again while the group has members) that started after it.
 * Waits until they are gone; returns what was stopped and what could not be, as sentences.
 */
export async function stopLeftovers(
  recorded: readonly RunProcess[]
): Promise<{ stopped: string[]; problems: string[] }> {
  const stopped: string[] = []
  const problems: string[] = []
  const targets: number[] = []
  const all = listProcesses()
  for (const group of recorded) {
    const leader = all.get(group.pid)
    const leaderIsOurs = leader?.startTime === group.startTime
    if (leader && !leaderIsOurs) continue
    const members = [...all]
      .filter(([, stat]) => stat.pgrp === group.pid && stat.state !== 'Z')
      .filter(([, stat]) => BigInt(stat.startTime) >= BigInt(group.startTime))
      .map(([pid]) => pid)
    if (members.length === 0) continue
    for (const pid of members) {
      try {
        process.kill(pid, 'SIGKILL')
        targets.push(pid)
      } catch (error) {
        problems.push(
          `stop pid ${pid} of the run's group ${group.pid}: ${(error as Error).message}`
        )
      }
    }
    stopped.push(
      `stopped ${members.length} process${members.length === 1 ? '' : 'es'} the run left (group ${group.pid})`
    )
  }
  const deadline = Date.now() + WAIT_MS
  while (targets.some(running) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50))
  const left = targets.filter(running)
  if (left.length > 0) problems.push(`pids ${left.join(', ')} of the dead run are still running`)
  return { stopped, problems }
}

function running(pid: number): boolean {
  const stat = procStat(pid)
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X'
}

function listProcesses(): Map<number, NonNullable<ReturnType<typeof procStat>>> {
  const all = new Map<number, NonNullable<ReturnType<typeof procStat>>>()
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return all
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    const stat = procStat(Number(name))
    if (stat) all.set(Number(name), stat)
  }
  return all
}
