import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runActionInProcess } from './in-process.js'
import { secretFlag } from './action-runner.js'
import {
  lastUserMessage,
  startModelServer,
  type ModelServer,
  type RecordedRequest
} from './model-server.js'
import { createRepo, type TestRepo } from './repo.js'
import { until } from './until.js'

/**
 * The world of a task file (e2e/tasks*.test.ts): five greeting-helper tasks with a [P] pair, the
 * model that writes them as whole files, and the action run on them.
 */

/** What a test leaves to undo: the repositories and servers below are pushed onto it. */
type Cleanups = Array<() => unknown>

export const BRANCH = 'feat/7-greetings'
export const ISSUE = { number: 7, title: 'Greeting helpers', body: 'We need a few string helpers.' }

export const TASKS = `# Tasks: greeting helpers

Branch: ${BRANCH}

## Phase 1
- [ ] T001 Create the greeting helper in src/greet.js
- [x] T000 Set up the project (done earlier)

## Phase 2
- [ ] T002 [P] Add a farewell helper in src/farewell.js (after T001)
- [ ] T003 [P] Add a shout helper in \`src/shout.js\` (after T001)
  - it upper-cases its argument
- [ ] T004 Export every helper from src/index.js (after T002, T003)
- [ ] T005 Document the helpers in README.md
`

/** The new content of each file, as the model writes it. */
export const GOOD: Record<string, string> = {
  'src/greet.js': 'module.exports.greet = (name) => `Hello, ${name}!`\n',
  'src/farewell.js': 'module.exports.farewell = (name) => `Goodbye, ${name}!`\n',
  'src/shout.js': 'module.exports.shout = (text) => text.toUpperCase()\n',
  'src/index.js':
    "module.exports = { ...require('./greet'), ...require('./farewell'), ...require('./shout') }\n",
  'README.md': '# Helpers\n\ngreet, farewell and shout.\n'
}

/**
 * The model: whole-file drafts by the plan's path; commit subjects by the task's title. Drafts
 * of `together` are answered only once each of them has been asked (so drafts sent side by side
 * overlap however slow the machine; asked one by one, they wait out until()'s deadline, to fail).
 */
export function script(
  files: Record<string, string>,
  delays: Record<string, number> = {},
  together: string[] = []
) {
  const asked = new Set<string>()
  return async (request: RecordedRequest) => {
    const text = lastUserMessage(request)
    if (text.startsWith('Write the subject line')) {
      const files = /Files changed: (.*)/.exec(text)![1]!
      return `feat(helpers): add ${files.replace(/^src\//, '')} for the greeting helpers`
    }
    // A repair request names its file in "If <path> needs no further change".
    const path = (/- Path: (\S+)/.exec(text) ?? /If (\S+) needs no further change/.exec(text))![1]!
    if (together.includes(path)) {
      asked.add(path)
      await until(
        () => together.every((other) => asked.has(other)),
        'the drafts asked together'
      ).catch(() => undefined)
    }
    return { content: `^^^${path}\n${files[path]}^^^end\n`, delayMs: delays[path] ?? 0 }
  }
}

export function tasksRepo(cleanups: Cleanups): TestRepo {
  const repo = createRepo({
    files: {
      'README.md': '# Helpers\n',
      // Loads every module: a broken helper fails validation.
      'check.js':
        "for (const f of require('fs').readdirSync('src')) require('./src/' + f)\nconsole.log('ok')\n",
      'src/.keep': ''
    },
    prefix: 'tasks'
  })
  cleanups.push(() => repo.cleanup())
  writeFileSync(join(repo.root, 'tasks.md'), TASKS)
  writeFileSync(join(repo.root, 'issue.json'), JSON.stringify(ISSUE))
  return repo
}

export async function modelServer(
  cleanups: Cleanups,
  s: Parameters<typeof startModelServer>[0]
): Promise<ModelServer> {
  const server = await startModelServer(s)
  cleanups.push(() => server.close())
  return server
}

export function draftOf(server: ModelServer, path: string): RecordedRequest[] {
  return server.requests.filter((r) => lastUserMessage(r).includes(`- Path: ${path}\n`))
}

export function pushedSubjects(repo: TestRepo, base: string): string[] {
  return repo.gitOrigin('log', '--reverse', '--format=%s', `${base}..${BRANCH}`).split('\n')
}

export interface TaskMetric {
  id: string
  status: string
  line: number
  sha?: string
  blocked_by?: string
  error?: { code: string }
}

export const LFS_POINTER =
  'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n'

/** The task file and issue of tasksRepo, as the action runs them (push: true, whole files). */
export function runTasks(repo: TestRepo, server: ModelServer, event?: object) {
  return runActionInProcess({
    workspace: repo.dir,
    ...(event ? { event } : {}),
    inputs: {
      'task-file': join(repo.root, 'tasks.md'),
      issue: join(repo.root, 'issue.json'),
      'base-url': server.url,
      'api-key': 'sk-test-tasks',
      'edit-format': 'whole-file',
      'validation-commands': 'node check.js',
      'comment-on-failure': 'false',
      'output-path': join(repo.root, 'result.json')
    }
  })
}

/** tasksRepo and modelServer, undone by `cleanups`. */
export function tasksWorld(cleanups: Cleanups) {
  return {
    tasksRepo: () => tasksRepo(cleanups),
    modelServer: (script: Parameters<typeof startModelServer>[0]) => modelServer(cleanups, script)
  }
}

/**
 * `patchsmith run` on tasksRepo's task file and issue (`tasks`, `issue`: as given on the command
 * line, relative to the repository or absolute), the key in a file.
 */
export function tasksCliArgs(
  repo: TestRepo,
  server: ModelServer,
  tasks = 'tasks.md',
  issue = 'issue.json'
): string[] {
  const key = secretFlag('--api-key-file', 'sk-test-tasks')
  return [
    '--json',
    'run',
    '--repo',
    repo.dir,
    '--tasks',
    tasks,
    '--issue',
    issue,
    '--base-url',
    server.url,
    ...key
  ]
}
