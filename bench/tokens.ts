/**
 * bench:tokens — prompt tokens per draft, counted with the o200k tokenizer on the prompts
 * Patchsmith builds: the seed's typo case (README.md, line 15) and a 3 000-line file with a
 * 20-line range, each against the seed's target of ≤ 5 000 tokens per draft.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FileChange } from '../src/contract/index.js'
import { countMessageTokens, DraftPrompter } from '../src/model/index.js'
import { PROJECT_ROOT } from '../__tests__/support/action-runner.js'
import { largeSourceFile, TYPO_ISSUE } from './lib/fixtures.js'
import { printFigure } from './lib/report.js'

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
