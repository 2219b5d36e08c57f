/**
 * The floor of bench:overhead: what any action that uses the openai SDK must spend at least —
 * Node, the SDK making one chat call (over the same transport as the action), and the shell
 * anchor's git calls. Nothing else: no inputs, no checks, no outputs. bench/overhead.ts bundles
 * this with ncc and runs it beside the action and the anchor.
 *
 * argv: <repo> <patch file> <base url> <branch> <subject>
 */
import { execFileSync } from 'node:child_process'
import OpenAI from 'openai'
import { cappedFetch } from '../../src/model/capped-fetch.js'

const [repo, patch, baseURL, branch, subject] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string
]
const client = new OpenAI({ baseURL, apiKey: 'floor', maxRetries: 0, fetch: cappedFetch(1 << 21) })
await client.chat.completions.create({
  model: 'floor',
  messages: [{ role: 'user', content: 'Fix the typo in README.md' }]
})
for (const args of [
  ['checkout', '-q', '-b', branch],
  ['apply', patch],
  ['add', 'README.md'],
  ['commit', '-q', '-m', subject]
]) {
  execFileSync('git', args, { cwd: repo, stdio: 'ignore' })
}
