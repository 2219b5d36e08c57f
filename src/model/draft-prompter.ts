import { formatNamed } from '../edits/index.js'
import { TokenBudgetExceededError, type Issue, type StyleConfig } from '../contract/index.js'
import { restyleAdded, type EditorconfigRules } from '../editorconfig/index.js'
import { syntaxOutline, type SyntaxOutline } from '../edits/index.js'
import type { RunBudget } from './budget.js'
import { draftMessages, promptShapes, type DraftRequest } from './draft-prompt.js'
import type { ChatMessage } from './chat.js'
import { DEFAULT_STYLE, fileStyle, styleForFile } from './style.js'
import { measurePrompt } from './tokens.js'

interface DraftPrompterOptions {
  repoDir: string
  /** max-tokens-per-draft: the prompt of one draft call, system message included. */
  maxTokens: number
  /** The snapshot's style_config: for what `.editorconfig` and the file's own text leave unset. */
  style?: StyleConfig
  /** Tags each record with the current draft round. */
  budget?: RunBudget
  /**
   * The lines of a file the issue points at (planning's issueFocus): the window of a change
   * planned without a line_range, when the whole file does not fit.
   */
  focus?: (path: string, content: string, issue: Issue) => [number, number] | undefined
}

/** The repository's instructions for a file's prompt (planning's RepoInstructions). */
interface InstructionsSource {
  block(path: string): Promise<{ text: string }>
}

/** Without `style`, the file's own style is read from `.editorconfig`. */
type PromptRequest = Omit<DraftRequest, 'style'> & { style?: StyleConfig }

interface PromptRecord {
  path: string
  attempt: number
  /** The prompt's tokens, counted when the prompt could come near the budget… */
  tokens?: number
  /** …else the byte bound that proved it fits, without loading the tokenizer. */
  tokens_at_most?: number
  /** 'file', or 'lines A-B of N' when a window was sent. */
  context: string
  /** The window's range, when the plan gave none and it came from what the issue names. */
  focus_range?: [number, number]
  trimmed?: string[]
}

/**
 * The prompt of one draft call, within max-tokens-per-draft: the whole file when it fits,
 * else a numbered window around the line range with the file's outline, else the issue and
 * failure output cut down; a context that fits in no shape is TOKEN_BUDGET_EXCEEDED.
 */
export class DraftPrompter {
  readonly records: PromptRecord[] = []
  private readonly styles = new Map<string, Promise<StyleConfig>>()
  /** Set once the base commit is known, before the first draft; unset: none are sent. */
  instructions?: InstructionsSource
  /**
   * The base commit's `.editorconfig` rules, set with `instructions`: the prompt's style and
   * what `restyle` applies. Unset: the style is read from the work tree, and nothing applied.
   */
  editorconfig?: EditorconfigRules

  constructor(private readonly options: DraftPrompterOptions) {}

  get maxTokens(): number {
    return this.options.maxTokens
  }

  /**
   * The style for a path, resolved once per path: `.editorconfig`, then what the file's own text
   * shows (`content`, as the run found it), then the snapshot's style_config, then the defaults.
   */
  styleFor(path: string, content: string | null = null): Promise<StyleConfig> {
    let style = this.styles.get(path)
    if (!style) {
      const fallback = {
        ...DEFAULT_STYLE,
        ...this.options.style,
        ...(content === null ? {} : fileStyle(content))
      }
      style = this.editorconfig
        ? Promise.resolve(this.editorconfig.styleFor(path, fallback))
        : styleForFile(this.options.repoDir, path, fallback)
      this.styles.set(path, style)
    }
    return style
  }

  /** A drafted file with the `.editorconfig` rules applied to the lines it adds to `before`. */
  restyle(path: string, before: string | null, after: string): string {
    return this.editorconfig ? restyleAdded(before, after, this.editorconfig.rulesFor(path)) : after
  }

  async messages(request: PromptRequest): Promise<ChatMessage[]> {
    const full: DraftRequest = {
      ...request,
      style: request.style ?? (await this.styleFor(request.change.path, request.content)),
      repoInstructions:
        request.repoInstructions ?? (await this.instructions?.block(request.change.path))?.text
    }
    const max = this.options.maxTokens
    const fitted = await this.fit(full)
    if ('messages' in fitted) return fitted.messages
    // Planned without a line_range: a window around what the issue names, as a plan-less run's
    // own plan would give it, before giving up.
    const range =
      full.content !== null && !full.change.line_range
        ? this.options.focus?.(full.change.path, full.content, full.issue)
        : undefined
    if (range) {
      const focused = await this.fit({ ...full, change: { ...full.change, line_range: range } })
      if ('messages' in focused) {
        this.records.at(-1)!.focus_range = range
        return focused.messages
      }
    }
    throw overBudget(full, fitted.smallest, max, this.options.focus ? (range ?? 'none') : undefined)
  }

  /** The first prompt shape within max-tokens-per-draft, recorded; else the smallest's tokens. */
  private async fit(
    full: DraftRequest
  ): Promise<{ messages: ChatMessage[] } | { smallest: number }> {
    const max = this.options.maxTokens
    let smallest = 0
    for (const shape of promptShapes(full, await outlineIfLarge(full, max))) {
      const messages = draftMessages(full, shape)
      const measured = await measurePrompt(messages, max)
      if (measured.tokens <= max) {
        const trimmed = [
          shape.otherFilesByName ? 'other files by name' : '',
          shape.issueChars ? 'issue cut' : '',
          shape.failureChars && full.repair ? 'failure output cut' : ''
        ].filter((part) => part !== '')
        this.records.push({
          path: full.change.path,
          attempt: this.options.budget?.attempt ?? 0,
          ...(measured.exact ? { tokens: measured.tokens } : { tokens_at_most: measured.tokens }),
          context: shape.window
            ? `lines ${shape.window.start}-${shape.window.end} of ${shape.window.totalLines}`
            : 'file',
          ...(trimmed.length > 0 ? { trimmed } : {})
        })
        return { messages }
      }
      smallest = measured.tokens
    }
    return { smallest }
  }
}

/**
 * The tree-sitter outline of a file that may need a window (its text alone could fill half the
 * budget, at about 4 characters a token); small files are sent whole and never parsed here.
 */
async function outlineIfLarge(request: DraftRequest, max: number): Promise<SyntaxOutline | null> {
  const { content, change } = request
  if (content === null || !change.line_range || content.length < max * 2) return null
  return syntaxOutline(change.path, content).catch(() => null)
}

/** `focus`: the range the issue's names gave a change planned without one ('none': none found). */
function overBudget(
  request: DraftRequest,
  tokens: number,
  max: number,
  focus?: [number, number] | 'none'
): TokenBudgetExceededError {
  const { change, content } = request
  const lines = content === null ? 0 : content.split('\n').length
  const found =
    focus === 'none'
      ? `The issue names nothing found in ${change.path}. `
      : focus
        ? `Even a window around lines ${focus[0]}-${focus[1]}, where the issue's names are, does not fit. `
        : ''
  // A format that resends the whole file is never windowed, with a line_range or without.
  const hint =
    content !== null && formatNamed(request.format).resendsWholeFile
      ? `The ${request.format} edit format resends the whole file; use another edit-format, or raise max-tokens-per-draft.`
      : content !== null && !change.line_range
        ? `${found}Give the plan a line_range for ${change.path} so that only a window of it is sent, or raise max-tokens-per-draft.`
        : `Narrow the line_range of ${change.path}, or raise max-tokens-per-draft.`
  return new TokenBudgetExceededError(
    `The prompt for ${change.path} needs ${tokens} tokens even at its smallest, more than ` +
      `max-tokens-per-draft (${max}). ${hint}`,
    {
      path: change.path,
      prompt_tokens: tokens,
      max_tokens_per_draft: max,
      file_lines: lines,
      ...(change.line_range ? { line_range: change.line_range } : {})
    }
  )
}
