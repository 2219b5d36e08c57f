import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const cache = new Map<string, string>()

/**
 * Loads `prompts/<name>.md`. The folder is looked up from this module's location upwards, so
 * the same code finds it beside the sources, beside the bundle (`dist/prompts/`) and in an
 * installed package.
 */
export function loadTemplate(name: string): string {
  const cached = cache.get(name)
  if (cached !== undefined) return cached
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(dir, 'prompts', `${name}.md`)
    if (existsSync(candidate)) {
      const text = readFileSync(candidate, 'utf8')
      cache.set(name, text)
      return text
    }
    dir = dirname(dir)
  }
  throw new Error(`Prompt template "${name}.md" was not found in any prompts/ folder above ${dir}`)
}

/** Fills `{{name}}` placeholders in one pass, so filled-in text is never expanded again. */
export function renderTemplate(name: string, values: Record<string, string | number>): string {
  return loadTemplate(name).replace(/\{\{(\w+)\}\}/g, (whole, key: string) =>
    key in values ? String(values[key]) : whole
  )
}
