import type { z } from 'zod'

/**
 * A schema built on its first use, then kept. Building a zod schema costs more than parsing
 * the few values a run gives it, and most runs never touch most of the contract.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): () => T {
  let schema: T | undefined
  return () => (schema ??= build())
}
