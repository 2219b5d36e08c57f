/**
 * What the bundle exports: the action's run() and the command line's cli(). Both entries
 * (dist/index.js, dist/cli.js) are small files that import this one bundle, so they share one
 * set of chunks.
 */
export { run } from './main.js'
export { cli } from './cli/index.js'
