/** The `patchsmith` command's entry point (bundled to dist/cli/index.js, run as dist/cli.js). */
import { cli } from './cli/index.js'

process.exitCode = await cli(process.argv.slice(2))
