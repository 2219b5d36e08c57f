import { isObjectRevision, type Git } from '../git/index.js'
import {
  instructionsBlock,
  MAX_INSTRUCTION_TOKENS,
  type InstructionFile,
  type InstructionsBlock
} from '../model/index.js'
import { INSTRUCTION_FILES, NEAREST_INSTRUCTIONS } from '../policy/index.js'

// The files read are the policy's list, so each is protected (policy/agent-instructions.ts).
export { INSTRUCTION_FILES }

const MAX_FILE_BYTES = 256 * 1024

/**
 * The repository's instructions as they are in one commit (the run's base): never the work
 * tree, where the model's edits or a branch someone else pushed could have written them. Read
 * once, through the run's object reader, for the paths the prompts will name.
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
    const wanted = new Set<string>([NEAREST_INSTRUCTIONS, ...INSTRUCTION_FILES])
    for (const path of paths) for (const folder of foldersAbove(path)) wanted.add(agentsIn(folder))
    // A branch name (a plan-less run's base) is resolved first: the reader takes ids alone.
    const rev = isObjectRevision(commit) ? commit : await git.tryRevParse(`${commit}^{commit}`)
    const blobs = rev ? await git.objects.blobs(rev, [...wanted], MAX_FILE_BYTES) : new Map()
    const files = new Map([...blobs].map(([path, bytes]) => [path, bytes.toString('utf8')]))
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
  return folder === '' ? NEAREST_INSTRUCTIONS : `${folder}/${NEAREST_INSTRUCTIONS}`
}
