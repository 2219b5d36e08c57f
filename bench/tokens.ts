/**
 * bench:tokens — prompt tokens per draft, counted with the o200k tokenizer on the prompts
 * Patchsmith builds: the seed's typo case (README.md, line 15) and a 3 000-line file with a
 * 20-line range, each against the seed's target of ≤ 5 000 tokens per draft. Then a 3-file
 * run through the bundle: the prefix its three draft prompts share, and the share of prompt
 * tokens the scripted server, playing OpenAI's prompt cache, reported as cached.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FileChange } from '../src/contract/index.js'
import { countMessageTokens, countTextTokens, DraftPrompter } from '../src/model/index.js'
import { PROJECT_ROOT } from '../__tests__/support/action-runner.js'
import { PROMPT_CACHE_OPENAI, sharedPrefix } from '../__tests__/support/prompt-cache.js'
import { largeSourceFile, TYPO_ISSUE } from './lib/fixtures.js'
import { printFigure, warnIfStaleBundle } from './lib/report.js'
import { FILES, threeFileRun } from './lib/three-file-run.js'

const MAX = 5_000
const repoDir = mkdtempSync(join(tmpdir(), 'patchsmith-bench-tokens-'))
try {
  const readme = readFileSync(join(PROJECT_ROOT, 'examples/typo-fix/repo/README.md'), 'utf8')
  const large = largeSourceFile(3_000)
  const cases: Array<{ name: string; change: FileChange; content: string; steps: string[] }> = [
    {
      name: 'typo case (README.md, line 15)',
      change: {
        path: 'README.md',
        operation: 'MODIFY',
        line_range: [15, 15],
        description: "Correct the typo 'teh' → 'the'"
      },
      content: readme,
      steps: ["Replace 'teh' with 'the' in the installation section of README.md"]
    },
    {
      name: '3 000-line file, 20-line range',
      change: {
        path: 'src/handlers.ts',
        operation: 'MODIFY',
        line_range: [1_501, 1_520],
        description: 'Fix the running total of handler150'
      },
      content: large,
      steps: ['Fix the running total of handler150']
    }
  ]
  console.log(`bench:tokens — prompt tokens per draft (o200k_base), max-tokens-per-draft ${MAX}\n`)
  for (const { name, change, content, steps } of cases) {
    const prompter = new DraftPrompter({ repoDir, maxTokens: MAX })
    const request = { format: 'udiff', issue: TYPO_ISSUE, change, planSteps: steps, content }
    const messages = await prompter.messages(request)
    const tokens = await countMessageTokens(messages)
    const whole = await countMessageTokens(
      await new DraftPrompter({ repoDir, maxTokens: 1_000_000 }).messages(request)
    )
    printFigure({
      name,
      value: tokens,
      unit: 'tokens',
      anchor: { max: MAX, label: 'seed: ≤ 5 k per draft' }
    })
    console.log(
      `${''.padEnd(44)} context: ${prompter.records[0]!.context}; the whole file would take ${whole} tokens\n`
    )
  }
} finally {
  rmSync(repoDir, { recursive: true, force: true })
}

warnIfStaleBundle()
const cache = PROMPT_CACHE_OPENAI
console.log(
  `3-file run (${FILES.join(', ')}), udiff, through node dist/index.js; the scripted server ` +
    `plays OpenAI's prompt cache (from ${cache.minTokens} shared tokens, in blocks of ${cache.blockTokens})\n`
)
const run = await threeFileRun(cache)
const prefix = sharedPrefix(run.drafts.map((draft) => draft.text))
const shortest = Math.min(...(await Promise.all(run.drafts.map((d) => countTextTokens(d.text)))))
const prefixTokens = await countTextTokens(prefix)
const lastLines = prefix.split('\n').slice(-3).join('⏎')
console.log(
  `shared prefix of the 3 draft prompts: ${prefixTokens} tokens (o200k), ${prefix.length} characters, ` +
    `${Math.round((100 * prefixTokens) / shortest)}% of the shortest draft prompt`
)
console.log(
  `  it holds: system rules, issue #77, plan steps, the udiff instructions; it ends "…${lastLines}"`
)
for (const draft of run.drafts)
  console.log(
    `  ${draft.path.padEnd(14)} prompt ${String(draft.usage.prompt).padStart(5)}, cached ${String(draft.usage.cached).padStart(5)} (reported by the server)`
  )
const drafted = run.drafts.reduce(
  (sum, d) => ({ prompt: sum.prompt + d.usage.prompt, cached: sum.cached + d.usage.cached }),
  { prompt: 0, cached: 0 }
)
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`
console.log(
  `cached-token share reported by the scripted server: ${percent(drafted.cached, drafted.prompt)} ` +
    `of the draft prompts (${drafted.cached} of ${drafted.prompt}), ` +
    `${percent(run.tokens.cached, run.tokens.prompt)} of the run's ${run.tokens.calls} calls ` +
    `(${run.tokens.cached} of ${run.tokens.prompt})`
)
