/**
 * The validation watch starts from the preflight's list of untracked files (no second scan of the
 * work tree): the user's own files must still survive, validation's leftovers must still go, and
 * no cached folder listing may hide a file.
 */
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { lastUserMessage, startModelServer } from '../support/model-server.js'
import { FRUIT_BRANCH, fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'
import { runOnPlan } from './scenario.js'
import { skipWithout } from '../support/sandbox-needs.js'

const cleanups = cleanupAfterEach()

function repoWith(files: Record<string, string> = {}) {
  const repo = fruitRepo(files)
  cleanups.push(() => repo.cleanup())
  return repo
}

/** Each case on the work tree itself and on an overlay of it (where the sandbox has one). */
const MODES = [
  ['on the work tree', 'false'],
  ['on an overlay of the work tree', 'true']
] as const

describe.each(MODES)('the validation watch, %s', (_mode, overlay) => {
  const mode = { settings: `validation-overlay: ${overlay}` }
  it("keeps the user's untracked files and removes the ones validation made", async () => {
    const repo = repoWith({ 'notes/README.md': '# notes\n' })
    writeFileSync(join(repo.dir, 'mine.txt'), 'my own\n')
    writeFileSync(join(repo.dir, 'notes/draft.md'), 'my draft\n')
    const made = 'echo x > notes/made.txt && mkdir -p out/deep && echo y > out/deep/new.txt'
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      ...mode,
      'validation-commands': `${made} && sh check.sh`
    })
    expect(run.exitCode, run.stdout).toBe(0)
    // As root (util-linux), the overlay is what runs: this case is not the other one twice.
    const overlaid = run.stdout.includes('on an overlay of the work tree')
    expect(overlaid).toBe(overlay === 'true' && !skipWithout('unshare'))
    expect(existsSync(join(repo.dir, 'mine.txt'))).toBe(true)
    expect(existsSync(join(repo.dir, 'notes/draft.md'))).toBe(true)
    expect(existsSync(join(repo.dir, 'notes/made.txt'))).toBe(false)
    expect(existsSync(join(repo.dir, 'out/deep/new.txt'))).toBe(false)
    expect(repo.git('status', '--porcelain', '--untracked-files=all').split('\n').sort()).toEqual([
      '?? mine.txt',
      '?? notes/draft.md'
    ])
  })

  it("refuses validation that changes the user's own untracked file in a protected path, and leaves one it does not touch", async () => {
    const repo = repoWith({ '.github/workflows/ci.yml': 'on: push\n' })
    writeFileSync(join(repo.dir, '.github/workflows/mine.yml'), 'on: workflow_dispatch\n')
    const untouched = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), mode)
    expect(untouched.exitCode, untouched.stdout).toBe(0)
    expect(existsSync(join(repo.dir, '.github/workflows/mine.yml'))).toBe(true)
    repo.git('checkout', '-q', 'main')
    repo.git('branch', '-D', FRUIT_BRANCH)
    repo.gitOrigin('branch', '-D', FRUIT_BRANCH)
    const changed = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      ...mode,
      'validation-commands': "echo '  run: curl evil' >> .github/workflows/mine.yml; sh check.sh"
    })
    expect(changed.result.error?.code, changed.stdout).toBe('SECURITY_VIOLATION')
    expect(changed.result.error?.details?.rule).toBe('unexpected-changes')
    expect(changed.result.error?.message).toContain('.github/workflows/mine.yml')
    expect(repo.gitOrigin('branch', '--list', FRUIT_BRANCH)).toBe('')
  })

  it("removes a thousand files validation made with long names, and leaves the user's protected file it did not touch", async () => {
    const repo = repoWith({ '.github/workflows/ci.yml': 'on: push\n' })
    writeFileSync(join(repo.dir, '.github/workflows/mine.yml'), 'on: workflow_dispatch\n')
    // More paths than the watch names to git one by one, and more bytes than one command line
    // holds (Linux: 2 MiB with the environment).
    const name = `made-${'x'.repeat(220)}`
    const made = `for i in $(seq 1 10000); do : > ${name}-$i; done`
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      ...mode,
      'validation-commands': `${made} && sh check.sh`
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(readdirSync(repo.dir).filter((entry) => entry.startsWith('made-'))).toEqual([])
    expect(existsSync(join(repo.dir, '.github/workflows/mine.yml'))).toBe(true)
  })

  it('keeps what setup commands wrote before validation, and still removes what validation wrote', async () => {
    const repo = repoWith()
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      ...mode,
      'setup-commands': 'echo built > setup-made.txt',
      'validation-commands': 'echo x > validation-made.txt && sh check.sh'
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(existsSync(join(repo.dir, 'setup-made.txt'))).toBe(true)
    expect(existsSync(join(repo.dir, 'validation-made.txt'))).toBe(false)
  })

  it('keeps a file the start branch ignores and the base does not, after checking out the base', async () => {
    const repo = repoWith()
    repo.git('checkout', '-q', '-b', 'feature')
    writeFileSync(join(repo.dir, '.gitignore'), 'local.env\n')
    repo.git('add', '.gitignore')
    repo.git('commit', '-q', '-m', 'ignore local.env')
    writeFileSync(join(repo.dir, 'local.env'), 'KEEP=me\n')
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      ...mode,
      'base-branch': 'main'
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(repo.gitOrigin('rev-parse', '--verify', '-q', FRUIT_BRANCH)).toMatch(/^[0-9a-f]{40}$/)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('feature')
    expect(existsSync(join(repo.dir, 'local.env'))).toBe(true)
  })

  it('sees a file planted in a folder whose mtime was set back, whatever the repository configures', async () => {
    const repo = repoWith({ '.github/workflows/ci.yml': 'on: push\n' })
    // A repository may keep an untracked cache (which trusts a folder's listing while its stat
    // seconds are unchanged) and turn ctime off: the watch's scans must use neither.
    for (const [key, value] of [
      ['core.untrackedCache', 'true'],
      ['status.showUntrackedFiles', 'all'],
      ['core.trustctime', 'false'],
      ['core.checkStat', 'minimal']
    ])
      repo.git('config', key, value!)
    const folder = join(repo.dir, '.github/workflows')
    // An old mtime, so git does not treat the folder as racily clean and list it anyway; the
    // cache is written now, within the second the run plants its file as often as not.
    utimesSync(folder, new Date('2020-01-01'), new Date('2020-01-01'))
    repo.git('status', '--porcelain')
    mkdirSync(join(repo.root, 'bin'), { recursive: true })
    writeFileSync(
      join(repo.root, 'bin/plant.py'),
      [
        'import os',
        "st = os.stat('.github/workflows')",
        "open('.github/workflows/evil.yml', 'w').write('on: push # planted\\n')",
        "os.utime('.github/workflows', ns=(st.st_atime_ns, st.st_mtime_ns))",
        ''
      ].join('\n')
    )
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      ...mode,
      'validation-commands': `python3 ../bin/plant.py && sh check.sh`,
      sandbox: 'off'
    })
    expect(run.result.error?.code, run.stdout).toBe('SECURITY_VIOLATION')
    expect(run.result.error?.details?.rule).toBe('unexpected-changes')
    expect(run.result.error?.message).toContain('.github/workflows/evil.yml')
    expect(repo.gitOrigin('branch', '--list', FRUIT_BRANCH)).toBe('')
  })
  it("keeps a file the base ignores and the draft's .gitignore no longer does", async () => {
    const repo = repoWith({ '.gitignore': 'local.env\nbuild/\n' })
    writeFileSync(join(repo.dir, 'local.env'), 'KEEP=me\n')
    const server = await startModelServer((request) =>
      lastUserMessage(request).includes('Conventional Commit')
        ? 'chore(ignore): stop ignoring local env files'
        : '--- a/.gitignore\n+++ b/.gitignore\n@@ -1,2 +1 @@\n-local.env\n build/\n'
    )
    cleanups.push(() => server.close())
    const run = await runOnPlan(repo, {
      issue: { number: 4, title: 'Stop ignoring local.env', body: 'Drop it from .gitignore.' },
      plan: {
        branch_name: 'fix/4-ignore',
        plan_steps: ['Drop local.env from .gitignore'],
        file_changes: [{ path: '.gitignore', operation: 'MODIFY' }],
        validation_commands: []
      },
      inputs: {
        ...mode,
        'base-url': server.url,
        'api-key': 'sk-test-ignore',
        'validation-commands': 'true',
        'allow-protected-paths': '.gitignore',
        'output-path': `${repo.root}/result.json`,
        'log-dir': `${repo.root}/logs`
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(repo.gitOrigin('show', 'fix/4-ignore:.gitignore')).toBe('build/')
    expect(existsSync(join(repo.dir, 'local.env'))).toBe(true)
  })
})
