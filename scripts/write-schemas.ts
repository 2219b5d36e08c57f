// Writes the contract as JSON Schema files for the steps before and after this one.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { contractJsonSchemas } from '../src/contract/json-schemas.js'

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas')
mkdirSync(out, { recursive: true })
for (const [name, schema] of Object.entries(contractJsonSchemas())) {
  writeFileSync(join(out, `${name}.json`), `${JSON.stringify(schema, null, 2)}\n`)
  console.log(`schemas/${name}.json`)
}
