/**
 * A 3-file run through `node dist/index.js` against the scripted model server playing a
 * provider's prompt cache: the draft prompts the run sent, and the usage the server reported.
 */
import {
  lastUserMessage,
  startModelServer,
  type RecordedRequest
} from '../../__tests__/support/model-server.js'
import type { PromptCacheRule } from '../../__tests__/support/prompt-cache.js'
import { createRepo } from '../../__tests__/support/repo.js'
import { runPlan } from './plan-run.js'

export const FILES = ['src/cart.js', 'src/price.js', 'src/tax.js'] as const

const CONTENT: Record<(typeof FILES)[number], string> = {
  'src/cart.js':
    "import { price } from './price.js'\nexport const total = (items) => items.reduce((sum, item) => sum + price(item), 0)\n",
  'src/price.js': 'export const price = (item) => item.price\n',
  'src/tax.js': 'export const tax = (amount) => amount * 0.2\n'
}
const FIXED: Record<(typeof FILES)[number], [string, string]> = {
  'src/cart.js': ['sum + price(item), 0)', 'sum + price(item), 0) // quantities in price()'],
  'src/price.js': ['item.price', 'item.price * item.quantity'],
  'src/tax.js': ['amount * 0.2', 'Math.round(amount * 0.2 * 100) / 100']
}

// A bug report as people write them: what happened, a stack trace, what was expected.
const ISSUE_BODY = [
  'Checking out a cart with two of the same item charges for one. Steps to reproduce:',
  '',
  '1. Add a "Blue mug" (price 12.50) to the cart.',
  '2. Set its quantity to 2 on the cart page.',
  '3. Go to checkout: the total shows 12.50 and the tax 2.5, where 25.00 and 5.00 are expected.',
  '',
  'The order confirmation mail has the same wrong total, and the payment provider was charged',
  '12.50 + tax, so this loses money on every multi-quantity order since the 3.4 release.',
  '',
  'Log from the checkout service at the time:',
  '',
  '```',
  ...Array.from(
    { length: 24 },
    (_, i) =>
      `2026-11-20T09:14:${String(10 + i).padStart(2, '0')}Z checkout[4121]: order=${88_000 + i} items=3 qty=[2,1,4] total=${(12.5 + i).toFixed(2)} expected=${(25 + 2 * i).toFixed(2)} tax=${((12.5 + i) * 0.2).toFixed(2)} WARN total-mismatch`
  ),
  '    at computeTotal (src/cart.js:2:41)',
  '    at Checkout.submit (src/checkout/submit.js:88:19)',
  '    at processTicksAndRejections (node:internal/process/task_queues:105:5)',
  '```',
  '',
  'Tax amounts also come out with long fractions (2.5000000000000004) on some totals; they',
  'should be rounded to cents. Everything else on the page looks right.'
].join('\n')

export interface ThreeFileRun {
  /** Every draft prompt as the server received it (messages' text joined), arrival order. */
  drafts: Array<{ path: string; text: string; usage: { prompt: number; cached: number } }>
  tokens: { prompt: number; cached: number; completion: number; calls: number }
}

export async function threeFileRun(cache: PromptCacheRule): Promise<ThreeFileRun> {
  const server = await startModelServer(replyFor, { promptCache: cache })
  const repo = createRepo({ files: { ...CONTENT }, prefix: 'bench-tokens' })
  try {
    const { metrics } = await runPlan(repo, server.url, {
      issue: { number: 77, title: 'Cart total ignores item quantities', body: ISSUE_BODY },
      plan: {
        branch_name: 'fix/77-cart-quantities',
        plan_steps: [
          'Multiply the price by the quantity in src/price.js',
          'Note in src/cart.js that price() now covers quantities',
          'Round the tax to cents in src/tax.js'
        ],
        file_changes: FILES.map((path) => ({ path, operation: 'MODIFY', line_range: [1, 2] })),
        validation_commands: []
      }
    })
    const calls = metrics.tokens.per_call
    const drafts = server.requests
      .filter((request) => draftPath(request) !== undefined)
      .map((request) => {
        const path = draftPath(request)!
        const call = calls.find((candidate) => candidate.label === path)!
        return {
          path,
          text: promptText(request),
          usage: { prompt: call.prompt_tokens, cached: call.cached_prompt_tokens }
        }
      })
    return { drafts, tokens: metrics.tokens }
  } finally {
    repo.cleanup()
    await server.close()
  }
}

function draftPath(request: RecordedRequest): (typeof FILES)[number] | undefined {
  const prompt = lastUserMessage(request)
  return FILES.find((path) => prompt.includes(`Write a unified diff for ${path} `))
}

function replyFor(request: RecordedRequest): string {
  const path = draftPath(request)
  if (!path) return 'fix(cart): charge each item by its quantity'
  const [before, after] = FIXED[path]
  const old = CONTENT[path].trimEnd().split('\n')
  const lines = old.map((line) => (line.includes(before) ? line.replace(before, after) : line))
  const hunk = old.map((line, i) => (line === lines[i] ? ` ${line}` : `-${line}\n+${lines[i]}`))
  return `--- a/${path}\n+++ b/${path}\n@@ -1,${old.length} +1,${old.length} @@\n${hunk.join('\n')}\n`
}

function promptText(request: RecordedRequest): string {
  const messages = request.body?.messages as Array<{ role: string; content: string }>
  return messages.map((message) => `${message.role}\n${message.content}\n`).join('')
}
