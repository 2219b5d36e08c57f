import { existsSync, readFileSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { parseDocument } from 'yaml'
import { InvalidInputError } from '../contract/index.js'

export const MAX_INPUT_BYTES = 1024 * 1024
const MAX_DEPTH = 64
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * Reads an input given as a file path (a downloaded artifact) or as inline JSON/YAML.
 * Untrusted text: capped in size and depth, YAML warnings are errors, prototype keys refused.
 */
export function readStructured(source: string, field: string, baseDir: string): unknown {
  const path = isAbsolute(source) ? source : resolve(baseDir, source)
  const inline = /^\s*[{[]/.test(source)
  const isFile = !inline && !source.includes('\n') && existsSync(path) && statSync(path).isFile()
  const bytes = isFile ? statSync(path).size : Buffer.byteLength(source)
  if (bytes > MAX_INPUT_BYTES) tooLarge(field, bytes)
  const value = isFile
    ? parseText(readFileSync(path, 'utf8'), field, path.endsWith('.json'))
    : parseText(source, field, inline)
  if (value === null || typeof value !== 'object') {
    const what = isFile
      ? `the file ${source} holds no JSON/YAML object`
      : `"${source.slice(0, 80)}" is neither a readable file nor inline JSON/YAML`
    throw new InvalidInputError(`Input "${field}": ${what}.`, { field, rule: 'unreadable-input' })
  }
  return value
}

function parseText(text: string, field: string, json: boolean): unknown {
  let value: unknown
  if (json) {
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new InvalidInputError(
        `Input "${field}" is not valid JSON: ${(error as Error).message}`,
        {
          field,
          rule: 'parse-error'
        }
      )
    }
  } else {
    const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true, strict: true })
    const problem = document.errors[0] ?? document.warnings[0]
    // The parser recurses per level: input nested that deep is refused as such, not as a crash.
    if (problem && /Maximum call stack/.test(problem.message)) tooDeep(field)
    if (problem) {
      throw new InvalidInputError(`Input "${field}" is not valid YAML: ${problem.message}`, {
        field,
        rule: 'parse-error'
      })
    }
    try {
      value = document.toJS({ maxAliasCount: 100 })
    } catch (error) {
      if (error instanceof RangeError) tooDeep(field)
      // An alias bomb ("billion laughs") stops here instead of expanding.
      throw new InvalidInputError(
        `Input "${field}" is not valid YAML: ${(error as Error).message}`,
        {
          field,
          rule: 'parse-error'
        }
      )
    }
  }
  assertSafeShape(value, field)
  return value
}

function assertSafeShape(root: unknown, field: string): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }]
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!
    if (value === null || typeof value !== 'object') continue
    if (depth > MAX_DEPTH) tooDeep(field)
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) {
        throw new InvalidInputError(`Input "${field}" holds the forbidden key "${key}".`, {
          field,
          rule: 'forbidden-key'
        })
      }
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 })
    }
  }
}

function tooLarge(field: string, bytes: number): never {
  throw new InvalidInputError(
    `Input "${field}" is ${bytes} bytes, over the ${MAX_INPUT_BYTES}-byte limit.`,
    { field, rule: 'input-too-large', bytes }
  )
}

function tooDeep(field: string): never {
  throw new InvalidInputError(`Input "${field}" is nested deeper than ${MAX_DEPTH} levels.`, {
    field,
    rule: 'too-deep'
  })
}
