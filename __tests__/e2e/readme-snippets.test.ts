/**
 * The README's "With a planner" step, run as written: its `with:` block, with only the runner's
 * expressions filled in, against a real repository, the loopback model and GitHub API.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { PROJECT_ROOT } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { startGitHubServer } from '../support/github-server.js'
import { startModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

interface Step {
  uses?: string
  with?: Record<string, string | boolean>
}

/** The Patchsmith step of the README's YAML block that hands a planner's plan over. */
function plannerSnippet(): Record<string, string> {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!)
  const block = blocks.find((text) => text.includes('fix-plan:'))!
  const steps = parse(block) as Step[]
  const step = steps.find((s) => s.uses?.startsWith('patchsmith/patchsmith@'))!
  return Object.fromEntries(Object.entries(step.with!).map(([key, value]) => [key, String(value)]))
}

function fill(value: string, values: Record<string, string>): string {
  return value.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_m, name: string) => {
    if (!(name in values)) throw new Error(`the snippet uses \${{ ${name} }}, unknown here`)
    return values[name]!
  })
}

const ISSUE = { number: 7, title: 'The greeting is too short', body: 'Say hello to the world.' }
const PLAN = {
  branch_name: 'fix/7-greeting',
  plan_steps: ['Greet the whole world'],
  file_changes: [{ path: 'greet.js', operation: 'MODIFY', description: 'greet the world' }],
  // A planner names the commands it wants, as the README's validation-commands list them.
  validation_commands: ['npm run lint', 'npm test']
}

function project(): TestRepo {
  const repo = createRepo({
    prefix: 'readme',
    files: {
      'package.json': JSON.stringify({
        name: 'greet',
        private: true,
        scripts: { lint: 'node --check greet.js', test: 'node test.js' }
      }),
      // npm ci (the snippet's setup command) needs a lockfile: one with no dependencies.
      'package-lock.json': JSON.stringify({
        name: 'greet',
        lockfileVersion: 3,
        requires: true,
        packages: { '': { name: 'greet' } }
      }),
      'greet.js': "exports.greet = () => 'hello'\n",
      'test.js': "if (require('./greet.js').greet() !== 'hello, world') process.exit(1)\n"
    }
  })
  cleanups.push(() => repo.cleanup())
  return repo
}

async function greetingModel() {
  const server = await startModelServer((request) =>
    JSON.stringify(request.body).includes('greet.js')
      ? "--- a/greet.js\n+++ b/greet.js\n@@ -1 +1 @@\n-exports.greet = () => 'hello'\n+exports.greet = () => 'hello, world'\n"
      : 'fix(greet): greet the whole world, not only hello'
  )
  cleanups.push(() => server.close())
  return server
}

describe("the README's examples, run as written", () => {
  it('With a planner: the step hands over the plan and its named validation commands run', async () => {
    const repo = project()
    const server = await greetingModel()
    // Where the snippet's download-artifact step puts the plan: ${{ runner.temp }}/plan.
    const temp = join(repo.root, 'runner-temp')
    mkdirSync(join(temp, 'plan'), { recursive: true })
    writeFileSync(join(temp, 'plan/fix-plan.json'), JSON.stringify(PLAN))
    writeFileSync(join(temp, 'plan/triage-result.json'), '{}')
    const snippet = plannerSnippet()
    const inputs = Object.fromEntries(
      Object.entries(snippet).map(([key, value]) => [
        key,
        fill(value, { 'runner.temp': temp, 'secrets.OPENAI_API_KEY': 'sk-readme-1234' })
      ])
    )
    expect(inputs['validation-commands']).toMatch(/^lint: /m)
    const run = await runActionInProcess({
      workspace: repo.dir,
      event: { issue: ISSUE },
      inputs: { ...inputs, 'base-url': server.url, 'require-actor-permission': 'none' }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    const [commit] = JSON.parse(run.outputs.commits!)
    expect(commit.files_changed).toEqual(['greet.js'])
    expect(commit.validation_results.map((r: { command: string }) => r.command)).toEqual([
      'npm run lint',
      'npm test'
    ])
  })

  it('an issue number beside a plan is fetched from the API, as it is without a plan', async () => {
    const repo = project()
    const server = await greetingModel()
    const github = await startGitHubServer()
    cleanups.push(() => github.close())
    github.route({ method: 'GET', path: '/repos/acme/greet/issues/7', body: ISSUE })
    const files = writeInputs(repo, { 'fix-plan.json': PLAN })
    const run = await runActionInProcess({
      workspace: repo.dir,
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/greet' },
      inputs: {
        issue: '7',
        'fix-plan': files['fix-plan.json']!,
        'validation-commands': 'npm run lint\nnpm test',
        'base-url': server.url,
        'api-key': 'sk-readme-1234',
        'github-token': 'ghs_readme0000000000000000000000000000',
        'require-actor-permission': 'none',
        push: 'false',
        'comment-on-failure': 'false'
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(JSON.parse(run.outputs.commits!)[0].issue_number).toBe(7)
    expect(github.requests.filter((r) => r.path === '/repos/acme/greet/issues/7')).toHaveLength(1)
  })

  it('names a fix the user can apply: a repo that is no checkout, a missing key', async () => {
    const repo = project()
    const files = writeInputs(repo, { 'issue.json': ISSUE, 'fix-plan.json': PLAN })
    const common = {
      issue: files['issue.json']!,
      'fix-plan': files['fix-plan.json']!,
      'require-actor-permission': 'none',
      'comment-on-failure': 'false'
    }
    const notRepo = await runActionInProcess({
      workspace: repo.dir,
      inputs: { ...common, repo: join(repo.root, 'artifact'), 'api-key': 'sk-readme-1234' }
    })
    expect(notRepo.outputs['error-code']).toBe('INVALID_INPUT')
    expect(notRepo.stdout).toContain('is not a git repository: point "repo" (CLI: --repo)')
    expect(notRepo.stdout).not.toContain('greet.js')

    const noKey = await runActionInProcess({ workspace: repo.dir, inputs: common })
    expect(noKey.stdout).toContain('No API key')
    // The command line takes no key on its argv: the fix it is told is one it accepts.
    expect(noKey.stdout).toContain('--api-key-file FILE')
    expect(noKey.stdout).not.toMatch(/--api-key(?!-file)/)
  })

  it('an input that moved into settings (output-path) still counts, with a warning', async () => {
    const repo = project()
    const server = await greetingModel()
    const files = writeInputs(repo, { 'issue.json': ISSUE, 'fix-plan.json': PLAN })
    const output = join(repo.root, 'my-result.json')
    const run = await runActionInProcess({
      workspace: repo.dir,
      // As GitHub hands an input action.yml does not declare: INPUT_<NAME>, and a warning.
      env: { 'INPUT_OUTPUT-PATH': output },
      inputs: {
        issue: files['issue.json']!,
        'fix-plan': files['fix-plan.json']!,
        'validation-commands': 'npm run lint\nnpm test',
        'base-url': server.url,
        'api-key': 'sk-readme-1234',
        'require-actor-permission': 'none'
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.outputs['output-path']).toBe(output)
    expect(JSON.parse(readFileSync(output, 'utf8')).success).toBe(true)
    expect(run.stdout).toContain('"output-path" is a settings line now')
  })
})
