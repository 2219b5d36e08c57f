// Rewrites the inputs and outputs tables of README.md from action.yml, between their markers.
// `npm run docs` writes; `npm run docs -- --check` fails when the README is stale.
import { readFileSync, writeFileSync } from 'node:fs'
import { README_PATH, readmeWithActionTables } from './action-docs.js'

const readme = readFileSync(README_PATH, 'utf8')
const updated = await readmeWithActionTables()
if (process.argv.includes('--check')) {
  if (updated !== readme) {
    console.error('README.md tables differ from action.yml: run `npm run docs`.')
    process.exit(1)
  }
  console.log('README.md tables match action.yml')
} else {
  writeFileSync(README_PATH, updated)
  console.log('README.md tables written from action.yml')
}
