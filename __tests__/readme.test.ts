import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { INPUTS_DOC_PATH, inputsDoc, PROJECT_ROOT, README_PATH } from '../scripts/action-docs.js'
import { GROUPED_SETTINGS, parseRunConfig } from '../src/config.js'
import { ERROR_CODES } from '../src/contract/schemas.js'

const readme = readFileSync(README_PATH, 'utf8')
const docs = readdirSync(join(PROJECT_ROOT, 'docs')).map((name) => join(PROJECT_ROOT, 'docs', name))

describe('README.md', () => {
  it('is at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
  })

  it('keeps the two commands at its top: the demo and the tests', () => {
    const top = readme.split('\n').slice(0, 40).join('\n')
    expect(top).toContain('npm ci && npm run demo')
    expect(top).toContain('npm test')
    expect(top).toMatch(/recorded/i)
  })

  it('shows the plan-less workflow exactly as examples/workflows/planless.yml (checked there)', () => {
    const example = readFileSync(join(PROJECT_ROOT, 'examples/workflows/planless.yml'), 'utf8')
    const block = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(block).toBe(example)
    expect(parse(block!)).toHaveProperty('jobs.patchsmith')
  })

  it('counts the inputs and names every output as action.yml has them', () => {
    const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>
      outputs: Record<string, unknown>
    }
    const inputs = Object.keys(action.inputs)
    expect(inputs.length).toBeLessThanOrEqual(30)
    expect(readme).toContain(`${inputs.length} inputs, all optional`)
    const outputs = /^The outputs: ([\s\S]*?)\n\n/m.exec(readme)![1]!
    const named = [...outputs.matchAll(/`([a-z-]+)`/g)].map((match) => match[1])
    expect(named.filter((name) => name! in action.outputs).sort()).toEqual(
      Object.keys(action.outputs).sort()
    )
  })

  it('quotes the defaults of the inputs it names as action.yml has them', () => {
    const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { default?: string }>
    }
    const section = /^## Inputs in short\n([\s\S]*?)\n## /m.exec(readme)![1]!
    const quoted = [...section.matchAll(/`([a-z-]+)` \((\d+)[^)]*\)/g)]
    expect(quoted.length).toBeGreaterThanOrEqual(4)
    for (const [, name, value] of quoted) expect(action.inputs[name!]?.default, name).toBe(value)
  })

  it('pins every action in the README and docs to a commit SHA, except Patchsmith itself', () => {
    for (const file of [README_PATH, ...docs]) {
      const text = readFileSync(file, 'utf8')
      for (const [, ref] of text.matchAll(/^\s*(?:- )?uses: (\S+)/gm)) {
        if (/^patchsmith\/patchsmith@v\d+$/.test(ref!)) continue
        expect(ref, file).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/)
      }
    }
  })

  it('.env.example gives every input of action.yml, as INPUT_<NAME> with hyphens kept', () => {
    const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>
    }
    const example = readFileSync(join(PROJECT_ROOT, '.env.example'), 'utf8')
    const given = [...example.matchAll(/^INPUT_([A-Z-]+)=/gm)].map((match) => match[1])
    expect(given).toEqual(Object.keys(action.inputs).map((name) => name.toUpperCase()))
    expect(example).toContain(`All ${given.length} inputs`)
  })

  it('links only to files that exist, from the README and from docs/', () => {
    for (const file of [README_PATH, ...docs]) {
      const text = readFileSync(file, 'utf8')
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        expect(existsSync(resolve(dirname(file), target!)), `${file}: ${target}`).toBe(true)
      }
    }
  })
})

describe('docs/', () => {
  it('documents every input, setting and output as action.yml and the code have them (`npm run docs`)', async () => {
    expect(readFileSync(INPUTS_DOC_PATH, 'utf8')).toBe(await inputsDoc())
  })

  it('lists every error code of the contract in docs/errors.md, and no other', () => {
    const table = readFileSync(join(PROJECT_ROOT, 'docs/errors.md'), 'utf8')
    const codes = [...table.matchAll(/^\| `([A-Z_]+)`/gm)].map((match) => match[1])
    expect(codes).toEqual([...ERROR_CODES])
  })

  it('quotes the grouped settings and their defaults in action.yml as the code has them', () => {
    const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { description: string }>
    }
    const described = action.inputs.settings!.description.replace(/\s+/g, ' ')
    const defaults = parseRunConfig({}) as Record<string, unknown>
    for (const [name, { key }] of Object.entries(GROUPED_SETTINGS)) {
      const value = defaults[key]
      const shown =
        value === undefined || (Array.isArray(value) && value.length === 0) ? '' : ` (${value})`
      expect(described).toMatch(
        new RegExp(`(^|\\s)${name}${shown.replace(/[()[\]]/g, '\\$&')}[,.]`)
      )
    }
  })
})
