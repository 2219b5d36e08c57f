// The demo: the whole pipeline on examples/typo-fix in a temp repository with a bare origin.
// Offline by default: recorded model replies served over real HTTP by a local
// OpenAI-compatible server. With --live (and OPENAI_API_KEY) the real model is asked.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCli, PROJECT_ROOT } from '../__tests__/support/action-runner.js'
import {
  replyByMatch,
  startModelServer,
  type ModelServer
} from '../__tests__/support/model-server.js'
import { copyDirFiles, createRepo } from '../__tests__/support/repo.js'

interface Recorded {
  model: string
  replies: Array<{ contains: string; reply: string }>
}

const example = join(PROJECT_ROOT, 'examples/typo-fix')
const live = process.argv.includes('--live')
const recorded = JSON.parse(readFileSync(join(example, 'replies.json'), 'utf8')) as Recorded

if (live && !process.env.OPENAI_API_KEY) {
  console.error('--live needs OPENAI_API_KEY (and optionally OPENAI_BASE_URL, PATCHSMITH_MODEL).')
  process.exit(2)
}

const repo = createRepo({ files: copyDirFiles(join(example, 'repo')), prefix: 'demo' })
let server: ModelServer | undefined
try {
  let baseUrl = process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1'
  let model = process.env.PATCHSMITH_MODEL ?? recorded.model
  if (live) {
    console.log(`LIVE DEMO: asking ${model} at ${baseUrl}\n`)
  } else {
    server = await startModelServer(replyByMatch(recorded.replies))
    baseUrl = server.url
    model = recorded.model
    console.log('OFFLINE DEMO with RECORDED model replies (examples/typo-fix/replies.json),')
    console.log(`served by a local OpenAI-compatible server at ${baseUrl}.`)
    console.log('Set OPENAI_API_KEY and run `npm run demo -- --live` to ask a real model.\n')
  }
  console.log(`Repository: ${repo.dir} (origin: ${repo.origin})\n`)
  const run = await runCli(
    [
      'run',
      '--repo',
      repo.dir,
      '--issue',
      join(example, 'issue.json'),
      '--plan',
      join(example, 'fix-plan.json'),
      '--triage',
      join(example, 'triage-result.json'),
      '--base-url',
      baseUrl,
      '--model',
      model,
      '--validation-command',
      'npm run lint',
      '--json'
    ],
    {
      cwd: repo.dir,
      env: live
        ? { OPENAI_API_KEY: process.env.OPENAI_API_KEY! }
        : { OPENAI_API_KEY: 'recorded-demo' }
    }
  )
  process.stderr.write(run.stderr)
  console.log('\nAgentResponse<Commit[]>:')
  console.log(run.stdout)
  if (run.exitCode === 0) {
    console.log('Branches on origin:')
    console.log(execFileSync('git', ['branch', '--list'], { cwd: repo.origin, encoding: 'utf8' }))
    console.log(repo.gitOrigin('log', '-1', '--stat', 'docs/42-fix-typo-readme'))
  }
  console.log(`\n${live ? 'Live' : 'Recorded-reply'} demo finished with exit code ${run.exitCode}.`)
  process.exitCode = run.exitCode
} finally {
  await server?.close()
  repo.cleanup()
}
