/**
 * Waiting for something another process does (a file appears, a process ends, a request
 * arrives) by looking again until it has happened: no fixed sleep that a loaded machine outruns.
 * The deadline only turns a hang into a failure that says what never happened.
 */
export async function until(
  check: () => boolean,
  what: string,
  deadlineMs = 30_000
): Promise<void> {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > deadlineMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
