import type { ReplyFormat, ReplyFormatOrAuto } from './formats/index.js'

/**
 * The edit format `auto` picks, by model family (the name after any `provider/` prefix):
 *
 * | family | format | why |
 * |---|---|---|
 * | `claude*`, `gemini*` | `search-replace` | they copy exact text well and miscount lines |
 * | `gpt-4o*`, `gpt-4-turbo*`, `gpt-3.5*` | `json-edits` | reliable structured output, weaker diff syntax |
 * | `llama*`, `qwen*`, `mistral*`, `mixtral*`, `codestral*`, `deepseek*`, `phi*`, `gemma*`, `starcoder*`, `codellama*` | `whole-file` | small open models lose the syntax of the other formats |
 * | anything else (`gpt-4.1*`, `gpt-5*`, `o1`/`o3`/`o4*`, `*codex*`, unknown) | `udiff` | trained on patches; the specification's default |
 */
export function chooseEditFormat(model: string): ReplyFormat {
  const name = model.trim().toLowerCase().split('/').pop() ?? ''
  if (/^(claude|gemini)/.test(name)) return 'search-replace'
  if (/^(gpt-4o|gpt-4-turbo|gpt-3\.5)/.test(name)) return 'json-edits'
  if (
    /^(llama|meta-llama|qwen|mistral|mixtral|codestral|deepseek|phi|gemma|starcoder|codellama)/.test(
      name
    )
  )
    return 'whole-file'
  return 'udiff'
}

/** The format to draft with: the configured one, or `auto` resolved for the model. */
export function resolveEditFormat(format: ReplyFormatOrAuto, model: string): ReplyFormat {
  return format === 'auto' ? chooseEditFormat(model) : format
}
