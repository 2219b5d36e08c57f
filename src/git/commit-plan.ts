/** The files one commit holds and, for a commit per plan step, which step it is. */
export interface CommitGroup {
  paths: string[]
  /** `number` of `total` step commits; `description` from the plan step, when it has one. */
  step?: { number: number; total: number; description?: string }
}

/** Above this many plan steps, a plan that says which files each step changes commits per step. */
const STEPS_FOR_SPLIT = 10

/**
 * One issue, one commit; a plan of more than ten steps whose steps name their files (`files`,
 * `paths`, `path` or `file_changes[].path`, covering every changed file) gets a commit per
 * step that changes something, in the plan's order.
 */
export function commitGroups(
  planSteps: readonly unknown[],
  paths: readonly string[]
): CommitGroup[] {
  const whole = [{ paths: [...paths] }]
  if (planSteps.length <= STEPS_FOR_SPLIT) return whole
  const owner = new Map<string, number>()
  planSteps.forEach((step, index) => {
    for (const path of stepPaths(step)) if (!owner.has(path)) owner.set(path, index)
  })
  if (!paths.every((path) => owner.has(path))) return whole
  const steps = [...new Set(paths.map((path) => owner.get(path)!))].sort((a, b) => a - b)
  if (steps.length < 2) return whole
  return steps.map((index, position) => ({
    paths: paths.filter((path) => owner.get(path) === index),
    step: {
      number: position + 1,
      total: steps.length,
      description: stepDescription(planSteps[index])
    }
  }))
}

/** Splits a git-style diff into its per-file sections, keyed by path. */
export function splitPatch(diff: string): Map<string, string> {
  const sections = new Map<string, string>()
  const parts = diff.split(/^(?=diff --git )/m).filter((part) => part.startsWith('diff --git '))
  for (const part of parts) {
    const header = part.slice(0, part.indexOf('\n') < 0 ? part.length : part.indexOf('\n'))
    // `diff --git a/<path> b/<path>` with the same path twice.
    const rest = header.slice('diff --git a/'.length)
    const path = rest.slice(0, (rest.length - ' b/'.length) / 2)
    sections.set(path, part)
  }
  return sections
}

function stepPaths(step: unknown): string[] {
  if (!step || typeof step !== 'object') return []
  const record = step as Record<string, unknown>
  const found: string[] = []
  for (const key of ['files', 'paths']) {
    const value = record[key]
    if (Array.isArray(value)) found.push(...value.filter((item) => typeof item === 'string'))
  }
  if (typeof record.path === 'string') found.push(record.path)
  if (Array.isArray(record.file_changes)) {
    for (const change of record.file_changes) {
      const path = (change as { path?: unknown } | null)?.path
      if (typeof path === 'string') found.push(path)
    }
  }
  return found
}

function stepDescription(step: unknown): string | undefined {
  if (typeof step === 'string') return step
  if (!step || typeof step !== 'object') return undefined
  const record = step as Record<string, unknown>
  for (const key of ['description', 'title', 'step', 'name', 'summary']) {
    if (typeof record[key] === 'string' && record[key]) return record[key] as string
  }
  return undefined
}
