import type { Task } from './parse.js'

/**
 * The pending tasks in the order they run, in batches: a dependency always runs before its
 * dependents, otherwise the file's order holds. A batch is one task, or the `[P]` tasks that are
 * ready together (none depends on another of the batch and none shares a file with another).
 */
export function taskBatches(tasks: readonly Task[]): Task[][] {
  const pending = tasks.filter((task) => !task.done)
  const placed = new Set(tasks.filter((task) => task.done).map((task) => task.id))
  const batches: Task[][] = []
  while (placed.size < tasks.length) {
    const ready = pending.filter(
      (task) => !placed.has(task.id) && task.after.every((id) => placed.has(id))
    )
    // parseTaskFile refuses cycles and unknown ids, so something is always ready.
    const first = ready[0]!
    const batch = [first]
    if (first.parallel) {
      for (const task of ready.slice(1)) {
        const files = new Set(batch.flatMap((member) => member.paths))
        if (task.parallel && !task.paths.some((path) => files.has(path))) batch.push(task)
      }
    }
    batch.forEach((task) => placed.add(task.id))
    batches.push(batch)
  }
  return batches
}
