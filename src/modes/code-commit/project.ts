import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { InvalidInputError } from '../../contract/index.js'

const QUERY_FILE = 'agent-config/query.txt'
const ROLLUP_FILE = 'agent-config/codeRollup.txt'
export const BUILD_SCRIPT = 'build.sh'
/** Where seed code-commit logs its activity: the NN-build.txt files go here. */
export const LOG_FOLDER = 'agent-config/logs'

export interface CodeCommitProject {
  query: string
  rollup: string
}

/**
 * The project as seed code-commit expects it: the supervisor's query and code rollup, a build
 * script, and `/agent-config` in .gitignore (the folder holds keys and logs that must never be
 * committed). Anything missing is an error before the model is asked.
 */
export function readProject(repoDir: string): CodeCommitProject {
  for (const file of [QUERY_FILE, ROLLUP_FILE, BUILD_SCRIPT]) {
    if (!existsSync(join(repoDir, file))) {
      throw new InvalidInputError(`${file} is missing: patchsmith commit needs it in ${repoDir}.`, {
        field: file,
        rule: 'missing-input'
      })
    }
  }
  const gitignore = join(repoDir, '.gitignore')
  const lines = existsSync(gitignore)
    ? readFileSync(gitignore, 'utf8')
        .split(/\r?\n/)
        .map((line) => line.trim())
    : []
  if (!lines.includes('/agent-config') && !lines.includes('/agent-config/')) {
    throw new InvalidInputError(
      '.gitignore has no "/agent-config" line: add it, so that keys and logs in agent-config/ are never committed.',
      { field: '.gitignore', rule: 'agent-config-not-ignored' }
    )
  }
  return {
    query: readFileSync(join(repoDir, QUERY_FILE), 'utf8'),
    rollup: readFileSync(join(repoDir, ROLLUP_FILE), 'utf8')
  }
}
