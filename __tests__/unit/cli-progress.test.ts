import { describe, expect, it } from 'vitest'
import { CliProgress, seconds } from '../../src/cli/progress.js'

/** A CliProgress whose lines can be awaited one by one, with a short interval. */
function progress(intervalMs = 5) {
  const lines: string[] = []
  const waiting: Array<(line: string) => void> = []
  const reporter = new CliProgress(
    (text) => {
      lines.push(text)
      waiting.shift()?.(text)
    },
    { intervalMs, maxRepairs: 3, debug: false }
  )
  const nextLine = () => new Promise<string>((resolve) => waiting.push(resolve))
  return { reporter, lines, nextLine }
}

describe('CliProgress', () => {
  it('says which repair is being drafted when a draft says nothing for an interval', async () => {
    const { reporter, nextLine } = progress()
    const line = nextLine()
    reporter.phase('draft', 2)
    // Seconds, not a set figure: a worker held up for a second on a loaded machine reads 1 s.
    expect(await line).toMatch(/^patchsmith \[\d+ s\] still drafting repair 1 of 3 \(\d+ s\)\n$/)
    reporter.stop()
  })

  it('names the running command, then its exit code, and says nothing once stopped', async () => {
    const { reporter, lines, nextLine } = progress()
    reporter.phase('validate')
    const ended = reporter.command('npm test', 'on the untouched base, for the proof')
    expect(lines[0]).toMatch(
      /^patchsmith \[\d+ s\] Running `npm test` \(on the untouched base, for the proof\)\n$/
    )
    expect(await nextLine()).toMatch(/still running `npm test` \(\d+ s\)\n$/)
    ended(1)
    expect(lines.at(-1)).toMatch(/`npm test` exited 1 after \d+ s\n$/)
    reporter.stop()
    const count = lines.length
    reporter.logger.info('late')
    expect(lines).toHaveLength(count)
  })

  it('writes minutes past the first one', () => {
    expect(seconds(45_900)).toBe('45 s')
    expect(seconds(185_000)).toBe('3 min 05 s')
  })
})
