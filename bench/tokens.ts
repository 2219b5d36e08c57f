/**
 * bench:tokens — prompt tokens per draft, counted with the o200k tokenizer on the prompts
 * Patchsmith builds: the seed's typo case (README.md, line 15) and a 3 000-line file with a
 * 20-line range, each against the seed's target of ≤ 5 000 tokens per draft. Then a 3-file
 * run through the bundle: the prefix its three draft prompts share, and the share of prompt
 * tokens the scripted server, playing OpenAI's prompt cache, reported as cached; the same run
 * again (a rerun: what each draft shares with the first run's) and a draft for another issue
 * (what every run shares: the fixed rules, format and example, which come first), each with
 * the cached-token share a provider with prefix caching would give.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FileChange } from '../src/contract/index.js'
import { countMessageTokens, countTextTokens, DraftPrompter } from '../src/model/index.js'
import { PROJECT_ROOT } from '../__tests__/support/action-runner.js'
import {
  PROMPT_CACHE_EXACT,
  PROMPT_CACHE_OPENAI,
  PromptCache,
  sharedPrefix,
  type PromptCacheRule
} from '../__tests__/support/prompt-cache.js'
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
    const request = {
      format: 'udiff' as const,
      issue: TYPO_ISSUE,
      change,
      planSteps: steps,
      content
    }
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
  `  it holds: system rules, the udiff rules and example, issue #77, plan steps; it ends "…${lastLines}"`
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

/** The cached share of `later` prompts a provider caching by `rule` gives after `earlier` ones. */
function cachedShare(rule: PromptCacheRule, earlier: string[], later: string[]): string {
  const provider = new PromptCache(rule)
  for (const text of earlier) provider.lookup(text)
  const cached = later.reduce((sum, text) => sum + provider.lookup(text), 0)
  const total = later.reduce((sum, text) => sum + Math.floor(text.length / 4), 0)
  return percent(cached, total)
}
const shares = (earlier: string[], later: string[]) =>
  `cached share: ${cachedShare(PROMPT_CACHE_OPENAI, earlier, later)} (OpenAI's rule), ` +
  `${cachedShare(PROMPT_CACHE_EXACT, earlier, later)} (every shared token cached)`

const first = run.drafts.map((draft) => draft.text)
console.log('\nconsecutive drafts of the run:')
for (let i = 1; i < first.length; i++) {
  const shared = await countTextTokens(sharedPrefix([first[i - 1]!, first[i]!]))
  console.log(
    `  ${run.drafts[i - 1]!.path} -> ${run.drafts[i]!.path}: shared prefix ${shared} tokens of ` +
      `${await countTextTokens(first[i]!)}; ${shares([first[i - 1]!], [first[i]!])}`
  )
}
const rerun = await threeFileRun(cache)
const again = rerun.drafts.map((draft) => draft.text)
console.log('rerun of the same run (each draft beside its draft in the first run):')
for (const draft of rerun.drafts) {
  const before = run.drafts.find((d) => d.path === draft.path)!.text
  console.log(
    `  ${draft.path.padEnd(14)} shared prefix ${await countTextTokens(sharedPrefix([before, draft.text]))} ` +
      `tokens of ${await countTextTokens(draft.text)}`
  )
}
console.log(`  all drafts of the rerun, ${shares(first, again)}`)

// Another issue on the same file: what runs share is the fixed part, which must come first.
const otherDir = mkdtempSync(join(tmpdir(), 'patchsmith-bench-tokens-'))
const other = new DraftPrompter({
  repoDir: otherDir,
  maxTokens: MAX
})
const issueDrafts = await Promise.all(
  [
    TYPO_ISSUE,
    { number: 43, title: 'Wrong total', body: 'The running total skips a handler.' }
  ].map(async (issue) =>
    (
      await other.messages({
        format: 'udiff',
        issue,
        change: { path: 'README.md', operation: 'MODIFY', line_range: [15, 15] },
        planSteps: ['Fix it'],
        content: readFileSync(join(PROJECT_ROOT, 'examples/typo-fix/repo/README.md'), 'utf8')
      })
    )
      .map((message) => `${message.role}\n${message.content}\n`)
      .join('')
  )
)
rmSync(otherDir, { recursive: true, force: true })
const fixed = sharedPrefix(issueDrafts)
const issueAt = issueDrafts[0]!.indexOf('Issue #')
console.log(
  `another issue, same file: shared prefix ${await countTextTokens(fixed)} tokens of ` +
    `${await countTextTokens(issueDrafts[1]!)} (system rules, format rules and example); ` +
    `${shares([issueDrafts[0]!], [issueDrafts[1]!])}`
)
console.log(
  fixed.length >= issueAt && issueAt > 0
    ? '  order holds: everything before the issue is shared'
    : `  ORDER BROKEN: the issue starts at ${issueAt}, the shared part ends at ${fixed.length}`
)
