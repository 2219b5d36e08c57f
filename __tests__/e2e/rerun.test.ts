import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseRunConfig } from '../../src/config.js'
import { loadAgentInput } from '../../src/inputs/index.js'
import {
  inputEntries,
  inputsFromFolder,
  locateInputs,
  withArtifactInputs
} from '../../src/inputs/artifact-inputs.js'
import { collectArtifactFiles } from '../../src/report/index.js'
import { runActionInProcess } from '../support/in-process.js'
import { startModelServer } from '../support/model-server.js'
import { typoRepo, TYPO_EXAMPLE } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-rerun-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('inputs from a downloaded artifact folder', () => {
  it('finds issue, fix plan and triage result at the top or in a subfolder, the shallowest first', () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'plan', 'deeper', 'too-deep'), { recursive: true })
    writeFileSync(join(dir, 'issue.json'), '{}')
    writeFileSync(join(dir, 'plan', 'fix-plan.yml'), 'a: 1')
    writeFileSync(join(dir, 'plan', 'deeper', 'fix-plan.json'), '{}')
    writeFileSync(join(dir, 'plan', 'deeper', 'triage-result.json'), '{}')
    writeFileSync(join(dir, 'plan', 'deeper', 'too-deep', 'tasks.md'), '')
    symlinkSync('/etc', join(dir, 'link'))
    expect(locateInputs(dir)).toEqual({
      issue: join(dir, 'issue.json'),
      fixPlan: join(dir, 'plan', 'fix-plan.yml'),
      triageResult: join(dir, 'plan', 'deeper', 'triage-result.json')
    })
  })

  it('fills only the inputs not given, and says what it looked for when nothing fits', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'issue.json'), '{}')
    writeFileSync(join(dir, 'fix-plan.json'), '{}')
    expect(inputsFromFolder(dir, { issue: 'mine.json' }, 'The artifact')).toEqual({
      fixPlan: join(dir, 'fix-plan.json')
    })
    expect(() =>
      inputsFromFolder(
        dir,
        { issue: 'mine.json', fixPlan: 'plan.json' },
        'The artifact "x" of run 5'
      )
    ).toThrow(
      /The artifact "x" of run 5 holds no input that is still missing \(looked for issue\.json, fix-plan\.json/
    )
  })

  it("round-trips: a run's uploaded inputs are what a rerun loads from the downloaded folder", async () => {
    const staging = tempDir()
    const first = parseRunConfig({
      issue: join(TYPO_EXAMPLE, 'issue.json'),
      fixPlan: join(TYPO_EXAMPLE, 'fix-plan.json'),
      // Inline YAML is uploaded as a file too.
      triageResult: 'classification: documentation\nrisk: low\n'
    })
    const entries = inputEntries(first, undefined)
    expect(entries.map((entry) => entry.name)).toEqual([
      'issue.json',
      'fix-plan.json',
      'triage-result.yml'
    ])
    collectArtifactFiles(entries, { stagingDir: staging })
    const rerun = await withArtifactInputs(
      parseRunConfig({ artifactRunId: '123456', githubToken: 'ghs_x' }),
      'acme/widgets',
      async (source) => {
        expect(source).toMatchObject({
          runId: 123456,
          name: 'patchsmith-result',
          token: 'ghs_x',
          repository: 'acme/widgets'
        })
        const dir = join(tempDir(), 'download')
        cpSync(staging, dir, { recursive: true })
        return dir
      }
    )
    const loaded = loadAgentInput({ ...rerun, baseDir: '/' })
    expect(loaded.issue.number).toBe(42)
    expect(loaded.fix_plan.branch_name).toBe('docs/42-fix-typo-readme')
    expect(loaded.triage_result).toEqual({ classification: 'documentation', risk: 'low' })
  })
})

describe('resume from a downloaded artifact', () => {
  const download = (files: Record<string, string>) => async () => {
    const dir = tempDir()
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true })
      writeFileSync(join(dir, name), content)
    }
    return dir
  }

  it("points resume: true at the artifact's result.json and still fills missing inputs", async () => {
    const config = await withArtifactInputs(
      parseRunConfig({ artifactRunId: '7', githubToken: 'ghs_x', resume: 'true' }),
      'acme/widgets',
      download({ 'patchsmith-result/result.json': '{}', 'fix-plan.json': '{}', 'issue.json': '{}' })
    )
    expect(config.resume).toMatch(/patchsmith-result\/result\.json$/)
    expect(config.fixPlan).toMatch(/fix-plan\.json$/)
  })

  it('needs no missing input when every one was given, but refuses an artifact without a result', async () => {
    const given = { issue: 'i.json', fixPlan: 'p.json', artifactRunId: '7', githubToken: 'ghs_x' }
    const config = await withArtifactInputs(
      parseRunConfig({ ...given, resume: 'true' }),
      'acme/widgets',
      download({ 'result.json': '{}' })
    )
    expect(config).toMatchObject({ fixPlan: 'p.json', issue: 'i.json' })
    await expect(
      withArtifactInputs(
        parseRunConfig({ ...given, resume: 'true' }),
        'acme/widgets',
        download({ 'fix-plan.json': '{}' })
      )
    ).rejects.toThrow(/holds no result.json to resume from/)
  })
})

describe('artifact-run-id through the action', () => {
  it('stops with a clear PERMISSION_DENIED before any model call when there is no token', async () => {
    const repo = typoRepo()
    cleanups.push(() => repo.cleanup())
    const server = await startModelServer(['never asked'])
    cleanups.push(() => server.close())
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        'artifact-run-id': '987654',
        'base-url': server.url,
        'api-key': 'sk-test-rerun'
      }
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('PERMISSION_DENIED')
    expect(run.stdout).toMatch(/artifact-run-id 987654: no GitHub token .* actions: read/)
    expect(server.requests).toHaveLength(0)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('refuses an artifact-run-id that is not a run id as INVALID_INPUT', async () => {
    const repo = typoRepo()
    cleanups.push(() => repo.cleanup())
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: { 'artifact-run-id': '12; rm -rf /', 'api-key': 'sk-test-rerun' }
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('INVALID_INPUT')
    expect(run.stdout).toContain('Setting "artifact-run-id": expected a workflow run id')
  })
})
