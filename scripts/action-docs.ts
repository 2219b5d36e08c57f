import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as prettier from 'prettier'
import { parse } from 'yaml'
import { ACTION_INPUT_GROUPS, GROUPED_SETTINGS, parseRunConfig } from '../src/config.js'

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const README_PATH = join(PROJECT_ROOT, 'README.md')
export const INPUTS_DOC_PATH = join(PROJECT_ROOT, 'docs/inputs.md')

interface ActionSpec {
  inputs: Record<string, { description: string; default?: string }>
  outputs: Record<string, { description: string }>
}

const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim()
const code = (text: string) => (text === '' ? '' : `\`${cell(text)}\``)

/** docs/inputs.md as it should be: built from action.yml and the settings, formatted by prettier. */
export async function inputsDoc(): Promise<string> {
  const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as ActionSpec
  const defaults = parseRunConfig({}) as Record<string, unknown>
  const text = [
    '# Inputs and outputs',
    '',
    '<!-- Generated from action.yml and src/settings.ts by `npm run docs`; a test checks it. -->',
    '',
    `All ${Object.keys(action.inputs).length} inputs are optional, and each is also a flag of`,
    'the command line with the same name (`--max-repairs 2`). Without `fix-plan`, `agent-input`,',
    '`task-file` or `coding-task`, Patchsmith plans the fix of the issue itself.',
    '',
    ...Object.entries(ACTION_INPUT_GROUPS).flatMap(([group, names]) => [
      `## ${group}`,
      '',
      '| Input | Default | Description |',
      '| --- | --- | --- |',
      ...names.map((name) => {
        const spec = action.inputs[name]!
        return `| \`${name}\` | ${code(spec.default ?? '')} | ${cell(spec.description)} |`
      }),
      ''
    ]),
    '## The `settings` lines',
    '',
    'Written one `name: value` per line in the `settings` input (a list setting repeats its',
    'name), or as flags of the same name on the command line:',
    '',
    '```yaml',
    'settings: |',
    '  model-timeout: 300',
    '  allowed-bots: renovate[bot]',
    '  comment-on-failure: false',
    '```',
    '',
    '| Setting | Default | Description |',
    '| --- | --- | --- |',
    ...Object.entries(GROUPED_SETTINGS).map(([name, { key, about }]) => {
      const value = defaults[key]
      const shown =
        value === undefined || (Array.isArray(value) && value.length === 0) ? '' : String(value)
      return `| \`${name}\` | ${code(shown)} | ${cell(about)} |`
    }),
    '',
    '## Outputs',
    '',
    '| Output | Description |',
    '| --- | --- |',
    ...Object.entries(action.outputs).map(
      ([name, spec]) => `| \`${name}\` | ${cell(spec.description)} |`
    ),
    ''
  ].join('\n')
  const options = await prettier.resolveConfig(INPUTS_DOC_PATH)
  return prettier.format(text, { ...options, filepath: INPUTS_DOC_PATH })
}
