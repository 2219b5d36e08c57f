import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const cache = new Map<string, string>()

/** A template by name, or a name with the folder it is kept in beside its code (an edit format's). */
type TemplateRef = string | { name: string; dir?: string }

/**
 * Loads a template: from its own folder when it names one and the file is there (the sources),
 * else `prompts/<name>.md`, looked up from this module's location upwards, so the same code finds
 * it beside the sources, beside the bundle (`dist/prompts/`) and in an installed package.
 */
function loadTemplate(ref: TemplateRef): string {
  const { name, dir: own } = typeof ref === 'string' ? { name: ref, dir: undefined } : ref
  const cached = cache.get(name)
  if (cached !== undefined) return cached
  const candidates = own === undefined ? [] : [join(own, `${name}.md`)]
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let depth = 0; depth < 6; depth++) {
    candidates.push(join(dir, 'prompts', `${name}.md`))
    dir = dirname(dir)
  }
  const found = candidates.find((candidate) => existsSync(candidate))
  if (found === undefined) {
    throw new Error(
      `Prompt template "${name}.md" was not found${own ? ` in ${own} or` : ''} in any prompts/ folder above ${dir}`
    )
  }
  const text = readFileSync(found, 'utf8')
  cache.set(name, text)
  return text
}

/** Fills `{{name}}` placeholders in one pass, so filled-in text is never expanded again. */
export function renderTemplate(ref: TemplateRef, values: Record<string, string | number>): string {
  return loadTemplate(ref).replace(/\{\{(\w+)\}\}/g, (whole, key: string) =>
    key in values ? String(values[key]) : whole
  )
}
