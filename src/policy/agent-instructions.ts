/**
 * Agents' instruction files: one list. The repository-instructions reader sends the model the
 * nearest AGENTS.md and INSTRUCTION_FILES (planning/repo-instructions.ts), and the policy's
 * agent-instructions class protects every name here at any depth, so no file Patchsmith (or the
 * next agent) obeys can be written by the model without `allow-protected-paths`.
 */

/** The instruction file nearest to a changed file wins (read in every folder above it). */
export const NEAREST_INSTRUCTIONS = 'AGENTS.md'

/** Read at the root beside the nearest AGENTS.md, in this order. */
export const INSTRUCTION_FILES = [
  'CLAUDE.md',
  '.github/copilot-instructions.md',
  'CONVENTIONS.md',
  'GEMINI.md'
] as const

/** What other agents read as instructions (not sent to the model; protected all the same). */
const OTHER_AGENT_INSTRUCTIONS = [
  'AGENTS.override.md',
  'AGENT.md',
  'CLAUDE.local.md',
  'WARP.md',
  'CRUSH.md',
  'QWEN.md',
  'JULES.md',
  'SKILL.md',
  '.cursorrules',
  '.windsurfrules',
  '.clinerules*',
  '.clinerules/**',
  '.roorules*',
  '.goosehints',
  '.rules',
  '.github/instructions/**',
  '.github/prompts/**',
  '.github/chatmodes/**'
] as const

/** The agent-instructions class's globs for the files above. */
export const AGENT_INSTRUCTION_GLOBS: readonly string[] = [
  NEAREST_INSTRUCTIONS,
  ...INSTRUCTION_FILES,
  ...OTHER_AGENT_INSTRUCTIONS
].map((name) => `**/${name}`)
