export { cli } from './run.js'
export { parseCliArgs, usage, UsageError } from './args.js'
