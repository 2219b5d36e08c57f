// Writes docs/inputs.md from action.yml and the settings.
// `npm run docs` writes; `npm run docs -- --check` fails when the file is stale.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { INPUTS_DOC_PATH, inputsDoc } from './action-docs.js'

const current = existsSync(INPUTS_DOC_PATH) ? readFileSync(INPUTS_DOC_PATH, 'utf8') : ''
const updated = await inputsDoc()
if (process.argv.includes('--check')) {
  if (updated !== current) {
    console.error('docs/inputs.md differs from action.yml: run `npm run docs`.')
    process.exit(1)
  }
  console.log('docs/inputs.md matches action.yml')
} else {
  writeFileSync(INPUTS_DOC_PATH, updated)
  console.log('docs/inputs.md written from action.yml')
}
