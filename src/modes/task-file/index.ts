import type { RunMode } from '../../engine/index.js'
import { TaskFilePlans } from './plans.js'

/** A task file (`task-file`): its tasks run batch after batch on the one engine. */
export const taskFileMode: RunMode = {
  plans: (ctx) => new TaskFilePlans(ctx)
}
