import { errorExcerpt, settle, type PipelineFailure, type Settled } from '../validation/index.js'
import type { ChatMessage } from './chat.js'
import { renderTemplate } from './prompt-templates.js'
import { fence, tail } from './untrusted-text.js'

/*
 * The repair prompt, built in one place: what the next draft is told after a failed attempt (a
 * validation command that failed, with what the draft left failing; or an edit that could not be
 * applied), the other files changed so far, and the message that carries it (prompts/repair.md).
 */

export interface RepairContext {
  kind: string
  /** The failing command's output, or the reason the edit could not be applied. */
  failure: string
  /** Paths changed so far besides this one, with their newest content (null: removed). */
  otherFiles: Record<string, string | null>
}

/** How much of a command's output a repair quotes, before a prompt shape cuts it further. */
const REPAIR_EXCERPT = 8_000

/** After a failed validation: the failing command, what the draft left failing, the excerpt of its output. */
export function validationRepair(failed: PipelineFailure): RepairContext {
  const { outcome } = failed
  return {
    kind: `the ${failed.step.step === 'command' ? 'validation command' : `${failed.step.step} step`} "${outcome.command}" failed with exit code ${outcome.exit_code}`,
    failure: `${targetsLeft(failed)}$ ${outcome.command}\n${errorExcerpt(outcome.full.stdout, outcome.full.stderr, REPAIR_EXCERPT)}`,
    otherFiles: {}
  }
}

/** After an edit that was refused before validation: why it could not be applied. */
export function refusedEditRepair(message: string): RepairContext {
  return { kind: 'the edit could not be applied', failure: message, otherFiles: {} }
}

/** The repair as one planned file's draft is told it: with every other file changed so far. */
export function repairOfFile(
  repair: RepairContext,
  base: ReadonlyMap<string, string | null>,
  current: ReadonlyMap<string, string | null>,
  path: string
): RepairContext {
  const others: Record<string, string | null> = {}
  for (const [other, content] of current) {
    if (other !== path && content !== base.get(other)) others[other] = content
  }
  return { ...repair, otherFiles: others }
}

/**
 * The repair's message after the draft's own: the other files by content (or, in a smaller
 * prompt shape, by name) and the failure cut to the shape's length.
 */
export function repairMessage(
  repair: RepairContext,
  values: Record<string, string | number>,
  shape: { otherFilesByName?: boolean; failureChars?: number }
): ChatMessage {
  const others = Object.entries(repair.otherFiles).map(([path, text]) =>
    text === null
      ? `${path}: removed`
      : shape.otherFilesByName
        ? `${path}: changed (content left out to fit the token budget)`
        : `${path} now reads:\n${fence(text)}`
  )
  return {
    role: 'user',
    content: renderTemplate('repair', {
      ...values,
      failure_kind: repair.kind,
      failure: fence(tail(repair.failure, shape.failureChars)),
      other_files: others.length > 0 ? `\nOther files changed so far:\n${others.join('\n')}\n` : ''
    })
  }
}

/** The repair's opening when the base was run: which targets the draft left failing, and which failures were always there. */
function targetsLeft(failed: PipelineFailure): string {
  if (!failed.verdict || !failed.base) return ''
  const settled = settle([failed.verdict])
  return settled.targets.length > 0 ? `${repairNote(settled)}\n\n` : ''
}

/**
 * The repair prompt's first words: what the draft left failing, and how it relates to the base,
 * so the model does not take a failure it did not fix for one that was always there.
 */
export function repairNote(settled: Settled): string {
  const lines = settled.targets.slice(0, 10).map((f) => `- ${describe(f)}`)
  const more = settled.targets.length > 10 ? [`- and ${settled.targets.length - 10} more`] : []
  const unrelated =
    settled.unrelated.length > 0
      ? [
          `These fail on the base branch the same way and are not part of this issue; leave them: ${settled.unrelated
            .slice(0, 10)
            .map((f) => f.id)
            .join(', ')}`
        ]
      : []
  return [`The draft did not fix it: still`, ...lines, ...more, ...unrelated].join('\n')
}

function describe(f: Settled['targets'][number]): string {
  const what = f.message ? `: ${f.message.split('\n').slice(0, 3).join(' | ')}` : ''
  switch (f.reason) {
    case 'new':
      return `${f.id} fails after the draft but passes on the base (the draft broke it)${what}`
    case 'changed':
      return `${f.id} fails, differently than on the base${what}`
    case 'named':
    case 'same-on-base':
      return `${f.id} fails exactly as on the base (the issue names it)${what}`
    case 'base-unknown':
      return `${f.id} fails${what}`
  }
}
