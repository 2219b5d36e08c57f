import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { z } from 'zod'

/** One line of a patch-recovery corpus (see DESIGN.md, "Data for benchmarks"). */
const CaseSchema = z.object({
  id: z.string(),
  source: z.string().optional(),
  mutations: z.array(z.string()).default([]),
  files: z.record(z.string(), z.string().nullable()),
  target: z.string().nullable().optional(),
  patch: z.string(),
  // Absent: the right answer is unknown; null: the right answer is to refuse.
  expected: z.record(z.string(), z.string().nullable()).nullable().optional()
})

export type BenchCase = z.infer<typeof CaseSchema> & { hasExpected: boolean }

/** Reads a corpus from the path given (gzipped when it ends in `.gz`); nothing is copied anywhere. */
export function readCorpus(path: string): BenchCase[] {
  const raw = readFileSync(path)
  return (path.endsWith('.gz') ? gunzipSync(raw) : raw)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const raw: unknown = JSON.parse(line)
      const parsed = CaseSchema.safeParse(raw)
      if (!parsed.success) {
        throw new Error(`${path}:${i + 1}: not a corpus case: ${parsed.error.issues[0]!.message}`)
      }
      return {
        ...parsed.data,
        hasExpected: typeof raw === 'object' && raw !== null && 'expected' in raw
      }
    })
}
