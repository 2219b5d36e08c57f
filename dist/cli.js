#!/usr/bin/env node
// The patchsmith command's entry; the code is in patchsmith.js.
import { cli } from './patchsmith.js'

process.exitCode = await cli(process.argv.slice(2))
