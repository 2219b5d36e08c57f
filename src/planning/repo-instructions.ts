import type { Git } from '../git/index.js'
import {
  instructionsBlock,
  MAX_INSTRUCTION_TOKENS,
  type InstructionFile,
  type InstructionsBlock
} from '../model/index.js'

/** The instruction files each peer agent reads, beside the nearest AGENTS.md. */
export const INSTRUCTION_FILES = [
  'CLAUDE.md',
  '.github/copilot-instructions.md',
  'CONVENTIONS.md',
  'GEMINI.md'
] as const

const MAX_FILE_BYTES = 256 * 1024

/**
 * The repository's instructions as they are in one commit (the run's base): never the work
 * tree, where the model's edits or a branch someone else pushed could have written them. Read
 * once, with one git process, for the paths the prompts will name.
 */
export class RepoInstructions {
  /** Every file some prompt carried, in the order first sent. */
  readonly used: string[] = []
  /** Files cut to fit the cap in some prompt. */
  readonly cut: string[] = []
  private readonly blocks = new Map<string, Promise<InstructionsBlock>>()

  private constructor(
    readonly commit: string,
    private readonly files: Map<string, string>,
    private readonly maxTokens: number
  ) {}

  /** Reads AGENTS.md in every folder above `paths` and the other instruction files at the root. */
  static async read(
    git: Git,
    commit: string,
    paths: readonly string[],
    maxTokens = MAX_INSTRUCTION_TOKENS
  ): Promise<RepoInstructions> {
    const wanted = new Set<string>(['AGENTS.md', ...INSTRUCTION_FILES])
    for (const path of paths) for (const folder of foldersAbove(path)) wanted.add(agentsIn(folder))
    const out = await git.exec(['cat-file', '--batch'], {
      input: [...wanted].map((path) => `${commit}:${path}\n`).join(''),
      allowFailure: true
    })
    const files = out.exitCode === 0 ? parseBatch(out.stdout, [...wanted]) : new Map()
    return new RepoInstructions(commit, files, maxTokens)
  }

  /**
   * The block for a prompt about `path` (the plan's prompt: none): the AGENTS.md nearest to it
   * (the convention: the closest one wins), then the other files, capped together.
   */
  block(path?: string): Promise<InstructionsBlock> {
    const key = path ?? ''
    let block = this.blocks.get(key)
    if (!block) {
      block = instructionsBlock(this.filesFor(path), this.maxTokens).then((made) => {
        for (const file of made.files) if (!this.used.includes(file)) this.used.push(file)
        for (const file of made.cut) if (!this.cut.includes(file)) this.cut.push(file)
        return made
      })
      this.blocks.set(key, block)
    }
    return block
  }

  private filesFor(path: string | undefined): InstructionFile[] {
    const chosen: InstructionFile[] = []
    const nearest = foldersAbove(path ?? '')
      .map(agentsIn)
      .find((candidate) => this.files.has(candidate))
    if (nearest) chosen.push({ path: nearest, text: this.files.get(nearest)! })
    for (const name of INSTRUCTION_FILES) {
      const text = this.files.get(name)
      if (text !== undefined) chosen.push({ path: name, text })
    }
    return chosen
  }
}

/** The folders holding `path`, nearest first, the root ('') last. */
function foldersAbove(path: string): string[] {
  const parts = path.split('/').slice(0, -1)
  const folders: string[] = []
  for (let i = parts.length; i > 0; i--) folders.push(parts.slice(0, i).join('/'))
  folders.push('')
  return folders
}

function agentsIn(folder: string): string {
  return folder === '' ? 'AGENTS.md' : `${folder}/AGENTS.md`
}

/**
 * `git cat-file --batch` output, one answer per request in order: `<sha> blob <size>` and the
 * content, or `<request> missing`. Sizes are bytes; a file that is not UTF-8 throws the count
 * off, so parsing stops at the first header that does not read as one (what came before stays).
 */
function parseBatch(stdout: string, requested: readonly string[]): Map<string, string> {
  const files = new Map<string, string>()
  const bytes = Buffer.from(stdout, 'utf8')
  let at = 0
  for (const path of requested) {
    const end = bytes.indexOf(0x0a, at)
    if (end < 0) break
    const header = bytes.subarray(at, end).toString('utf8')
    at = end + 1
    if (header.endsWith(' missing') || header.endsWith(' ambiguous')) continue
    const match = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header)
    if (!match) break
    const size = Number(match[2])
    const content = bytes.subarray(at, at + size)
    at += size + 1
    if (match[1] === 'blob' && size <= MAX_FILE_BYTES) files.set(path, content.toString('utf8'))
  }
  return files
}
