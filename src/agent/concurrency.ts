/**
 * Maps items with at most `limit` calls in flight, keeping results in input order. The first
 * failure aborts the shared signal, so calls still running stop instead of leaking.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number, signal: AbortSignal) => Promise<R>
): Promise<R[]> {
  const controller = new AbortController()
  const results: R[] = new Array(items.length)
  let next = 0
  let failure: { error: unknown } | undefined
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++
      try {
        results[index] = await fn(items[index]!, index, controller.signal)
      } catch (error) {
        if (!failure) failure = { error }
        controller.abort()
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  if (failure) throw failure.error
  return results
}
