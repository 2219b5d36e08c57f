/** The action's entry point; the work is in main.ts. */
import { run } from './main.js'

await run()
