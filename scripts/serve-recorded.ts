// Serves an example's recorded model replies over real HTTP: an OpenAI-compatible chat
// completions endpoint on 127.0.0.1, running until it is stopped. CI's test-action job points
// the action's `base-url` at it; it is also handy for `npx @github/local-action`.
//
//   npx tsx scripts/serve-recorded.ts [REPLIES_JSON] [URL_FILE]
//
// REPLIES_JSON defaults to examples/typo-fix/replies.json. The base URL is printed and, when
// URL_FILE is given, written there (whole, through a rename, so a step waiting for the file
// never reads half of it).
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { replyByMatch, startModelServer } from '../__tests__/support/model-server.js'

interface Recorded {
  model: string
  replies: Array<{ contains: string; reply: string }>
}

const [repliesFile = 'examples/typo-fix/replies.json', urlFile] = process.argv.slice(2)
const recorded = JSON.parse(readFileSync(resolve(repliesFile), 'utf8')) as Recorded
const server = await startModelServer(replyByMatch(recorded.replies))

if (urlFile) {
  writeFileSync(`${urlFile}.tmp`, `${server.url}\n`)
  renameSync(`${urlFile}.tmp`, urlFile)
}
console.log(
  `Serving ${recorded.replies.length} recorded replies from ${repliesFile} at ${server.url}`
)

async function stop(signal: string): Promise<void> {
  console.log(`${signal}: served ${server.requests.length} request(s); stopping`)
  await server.close()
  process.exit(0)
}
process.on('SIGINT', () => void stop('SIGINT'))
process.on('SIGTERM', () => void stop('SIGTERM'))
