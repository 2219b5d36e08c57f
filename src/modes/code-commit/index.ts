import { join, resolve } from 'node:path'
import { runEngine, type AgentEnvironment, type AgentRun } from '../../engine/index.js'
import type { RunConfig, RunConfigInput } from '../../config.js'
import { codeCommitDrafter, projectInput, type InitialQuery } from './drafter.js'
import { BUILD_SCRIPT, LOG_FOLDER, readProject, type CodeCommitProject } from './project.js'
import { initialMessages } from './prompts.js'

export { readProject } from './project.js'
export { fileReplacements } from './prompts.js'
export { replyBlocks } from './drafter.js'

/** build.sh is the validation, trusted: the maintainer chose it by running `patchsmith commit`. */
const BUILD_COMMAND = `bash ${BUILD_SCRIPT}`

/**
 * `patchsmith commit`'s settings: seed code-commit's 1 + 3 attempts, whole-file edits, build.sh,
 * logs in agent-config/logs, and the commit left local for the supervisor (no push, no issue
 * comment) unless the flags say otherwise.
 */
export function codeCommitSettings(settings: RunConfigInput): RunConfigInput {
  const repo = resolve(settings.repo ?? '.')
  const extra = Array.isArray(settings.validationCommands) ? settings.validationCommands : []
  return {
    editFormat: 'whole-file',
    maxRepairs: 3,
    push: false,
    logDir: join(repo, LOG_FOLDER),
    ...settings,
    repo,
    commentOnFailure: false,
    validationCommands: [BUILD_COMMAND, ...extra.filter((command) => command !== BUILD_COMMAND)]
  }
}

/** Seed code-commit on the engine: the project's query in, the usual run, the usual result out. */
export async function runCodeCommit(config: RunConfig, env: AgentEnvironment): Promise<AgentRun> {
  let project: CodeCommitProject | undefined
  let initial: InitialQuery | undefined
  return runEngine(config, env, {
    loadInput: async ({ repoDir, model }) => {
      project = readProject(repoDir)
      const messages = initialMessages(project)
      const completion = await model().complete(messages, {
        label: 'code-commit query',
        attempt: 1
      })
      initial = { messages, reply: completion.text }
      return { input: projectInput(project, completion.text, repoDir, [BUILD_COMMAND]) }
    },
    drafter: (ctx, attempt, current, repair) =>
      codeCommitDrafter(project!, () => initial!)(ctx, attempt, current, repair),
    commitMessage: (message) => message.replace(/\n\nFixes #\d+\s*$/, ''),
    pullRequest: false
  })
}
