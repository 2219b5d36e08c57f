import { describe, expect, it } from 'vitest'
import { runActionInProcess } from '../support/in-process.js'
import { startModelServer } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

describe('CREATE and DELETE operations', () => {
  it('creates one file and deletes another in the same commit, asking the model only for the new file', async () => {
    const repo = createRepo({
      files: { 'README.md': '# Demo\n', 'old/notes.txt': 'obsolete\nnotes\n' },
      prefix: 'ops'
    })
    cleanups.push(() => repo.cleanup())
    const baseSha = repo.git('rev-parse', 'HEAD')
    const server = await startModelServer((request) =>
      JSON.stringify(request.body).includes('Write a unified diff for docs/guide.md')
        ? 'Here is the new file:\n\n```diff\n--- /dev/null\n+++ b/docs/guide.md\n@@ -0,0 +1,3 @@\n+# Guide\n+\n+Start here.\n```\n'
        : 'docs(docs): add a guide and drop the obsolete notes'
    )
    cleanups.push(() => server.close())
    const files = writeInputs(repo, {
      'issue.json': { number: 12, title: 'Replace the old notes with a guide', body: '' },
      'plan.json': {
        branch_name: 'docs/12-guide',
        plan_steps: ['Write docs/guide.md', 'Remove old/notes.txt'],
        file_changes: [
          { path: 'docs/guide.md', operation: 'CREATE', description: 'A short guide' },
          { path: 'old/notes.txt', operation: 'DELETE' }
        ],
        validation_commands: ['test -f docs/guide.md', 'test ! -e old/notes.txt']
      }
    })
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        issue: files['issue.json']!,
        'fix-plan': files['plan.json']!,
        'base-url': server.url,
        'api-key': 'sk-test-ops',
        'allow-plan-commands': 'true'
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    const sha = run.outputs.sha!
    expect(repo.gitOrigin('show', `${sha}:docs/guide.md`)).toBe('# Guide\n\nStart here.')
    expect(repo.gitOrigin('diff', '--name-status', baseSha, sha)).toBe(
      'A\tdocs/guide.md\nD\told/notes.txt'
    )
    expect(server.requests).toHaveLength(2) // the new file and the commit message; deletion needs no model
    expect(run.outputs['files-changed']).toBe('docs/guide.md\nold/notes.txt')
    const [commit] = JSON.parse(run.outputs.commits!)
    expect(commit.diff).toContain('new file mode 100644')
    expect(commit.diff).toContain('deleted file mode 100644')
  })
})
