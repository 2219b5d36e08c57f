import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as prettier from 'prettier'
import { parse } from 'yaml'

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const README_PATH = join(PROJECT_ROOT, 'README.md')

/** README.md as it should be: its tables rebuilt from action.yml, formatted by prettier. */
export async function readmeWithActionTables(): Promise<string> {
  const readme = readFileSync(README_PATH, 'utf8')
  const rebuilt = actionTables(readme, readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8'))
  const options = await prettier.resolveConfig(README_PATH)
  return prettier.format(rebuilt, { ...options, filepath: README_PATH })
}

interface ActionSpec {
  inputs: Record<string, { description: string; default?: string }>
  outputs: Record<string, { description: string }>
}

const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim()

/** The README with its action.yml tables (between the `<!-- action.yml … -->` markers) rebuilt. */
export function actionTables(readme: string, actionYaml: string): string {
  const action = parse(actionYaml) as ActionSpec
  const inputs = [
    '| Input | Default | Description |',
    '| --- | --- | --- |',
    ...Object.entries(action.inputs).map(
      ([name, spec]) =>
        `| \`${name}\` | ${spec.default ? `\`${cell(String(spec.default))}\`` : ''} | ${cell(spec.description)} |`
    )
  ]
  const outputs = [
    '| Output | Description |',
    '| --- | --- |',
    ...Object.entries(action.outputs).map(
      ([name, spec]) => `| \`${name}\` | ${cell(spec.description)} |`
    )
  ]
  return replaceBetween(replaceBetween(readme, 'inputs', inputs), 'outputs', outputs)
}

function replaceBetween(text: string, what: string, table: string[]): string {
  const open = new RegExp(
    `(<!-- action\\.yml ${what}[^>]*-->\\n)[\\s\\S]*?(\\n<!-- /action\\.yml ${what} -->)`
  )
  if (!open.test(text)) throw new Error(`README.md has no <!-- action.yml ${what} --> markers`)
  return text.replace(
    open,
    (_all, start: string, end: string) => `${start}\n${table.join('\n')}\n${end}`
  )
}
