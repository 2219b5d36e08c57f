/** The `patchsmith` command's entry point from source; dist/cli.js does the same from the bundle. */
import { cli } from './cli/index.js'

process.exitCode = await cli(process.argv.slice(2))
