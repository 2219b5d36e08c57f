import type { ReplyFormat, ReplyFormatOrAuto } from './index.js'

/** Above this many lines, a whole-file reply costs more than the edit and is often cut off. */
export const WHOLE_FILE_MAX_LINES = 300

/**
 * The edit format `auto` picks, by model family (the name after any `provider/` prefix) and the
 * size of the file to edit. The rule follows published edit-format benchmarks (Aider's
 * leaderboards and its "unified diffs make GPT-4 Turbo 3X less lazy" study; the real-llm corpus
 * of bench:patches): weak and small local models land far more whole-file and search-replace
 * edits than unified diffs, whose line syntax they lose; strong models trained on patches do
 * best with unified diffs; whole files cost output tokens in proportion to the file and are the
 * replies most often cut off, so a large file gets search-replace instead.
 *
 * | family | file ≤ 300 lines | larger file |
 * |---|---|---|
 * | `llama*`, `qwen*`, `mistral*`, `mixtral*`, `codestral*`, `deepseek*`, `phi*`, `gemma*`, `starcoder*`, `codellama*` | `whole-file` | `search-replace` |
 * | `claude*`, `gemini*` | `search-replace` | `search-replace` |
 * | `gpt-4o*`, `gpt-4-turbo*`, `gpt-3.5*` | `json-edits` | `json-edits` |
 * | anything else (`gpt-4.1*`, `gpt-5*`, `o1`/`o3`/`o4*`, `*codex*`, unknown) | `udiff` | `udiff` |
 */
export function chooseEditFormat(model: string, fileLines = 0): ReplyFormat {
  const name = model.trim().toLowerCase().split('/').pop() ?? ''
  if (/^(claude|gemini)/.test(name)) return 'search-replace'
  if (/^(gpt-4o|gpt-4-turbo|gpt-3\.5)/.test(name)) return 'json-edits'
  if (
    /^(llama|meta-llama|qwen|mistral|mixtral|codestral|deepseek|phi|gemma|starcoder|codellama)/.test(
      name
    )
  )
    return fileLines > WHOLE_FILE_MAX_LINES ? 'search-replace' : 'whole-file'
  return 'udiff'
}

/** The format to draft a file with: the configured one, or `auto` resolved for model and file. */
export function resolveEditFormat(
  format: ReplyFormatOrAuto,
  model: string,
  content: string | null = null
): ReplyFormat {
  if (format !== 'auto') return format
  return chooseEditFormat(model, content === null ? 0 : content.split('\n').length)
}
