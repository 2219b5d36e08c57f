import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runCli } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { typoCliArgs, typoRepo, typoReplies } from './scenario.js'

const cleanups = cleanupAfterEach()
const uid = process.getuid!()

/** The file the summary names as the result. */
function resultNamed(stderr: string): string {
  const line = /^ {2}result: (\S+) \(this repository's default; --json prints it\)$/m.exec(stderr)
  expect(line, stderr).not.toBeNull()
  return line![1]!
}

describe('patchsmith run without --output (node dist/cli.js)', () => {
  it("keeps each repository's result apart: two repositories on one machine, two files", async () => {
    const temp = mkdtempSync(join(tmpdir(), 'patchsmith-cli-temp-'))
    cleanups.push(() => rmSync(temp, { recursive: true, force: true }))
    const server = await startModelServer(replyByMatch(typoReplies().replies))
    cleanups.push(() => server.close())
    const env = { OPENAI_API_KEY: 'sk-from-env-1234', TMPDIR: temp }
    const repos = [typoRepo(), typoRepo()]
    for (const repo of repos) cleanups.push(() => repo.cleanup())
    const runs = []
    for (const repo of repos)
      runs.push(await runCli([...typoCliArgs(repo.dir, server.url), '--no-push'], { env }))
    for (const run of runs) expect(run.exitCode, run.stderr).toBe(0)
    const files = runs.map((run) => resultNamed(run.stderr))
    expect(files[0]).not.toBe(files[1])
    repos.forEach((repo, k) => {
      expect(files[k]).toMatch(
        new RegExp(
          `^${temp}/patchsmith-${uid}/${repo.dir.split('/').pop()}-[0-9a-f]{8}/result.json$`
        )
      )
      const result = JSON.parse(readFileSync(files[k]!, 'utf8')) as CodeAgentOutput
      expect(result.data![0]!.sha).toBe(repo.git('rev-parse', 'refs/heads/docs/42-fix-typo-readme'))
    })
    // The same repository again: the same file, where --resume true looks for the last result.
    const again = await runCli([...typoCliArgs(repos[0]!.dir, server.url), '--no-push'], { env })
    expect(resultNamed(again.stderr)).toBe(files[0])
  })
})
