#!/usr/bin/env node
// The patchsmith command's entry; the code is in patchsmith.js. On Node 22.1 and later the
// compiled bundle is cached between runs (Node's compile cache; most of a cold start is
// compiling the 4 MB bundle), so it is loaded after the cache is on, and after V8 is set to
// compile WebAssembly with its baseline compiler only (scripts/bundle.mjs says why).
import module from 'node:module'
import { setFlagsFromString } from 'node:v8'

setFlagsFromString('--liftoff-only')
module.enableCompileCache?.()
const { cli } = await import('./patchsmith.js')
process.exitCode = await cli(process.argv.slice(2))
