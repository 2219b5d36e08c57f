import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type TestRepo } from '../support/repo.js'
import { failure } from '../support/errors.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { modify, GREETING, MESSAGE, changeBranchWorld } from '../support/change-branch-world.js'

/** ChangeBranch (src/change) with the repository's commit hooks (git-hooks: true). */

const cleanups = cleanupAfterEach()
const { repoWith, prepare, run } = changeBranchWorld(cleanups)

describe('ChangeBranch: commit hooks (opt-in)', () => {
  function hooked(repo: TestRepo, script: string): void {
    const dir = join(repo.dir, '.git', 'hooks')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'pre-commit'), script)
    chmodSync(join(dir, 'pre-commit'), 0o755)
  }

  /** The greeting applied on a new branch and committed with the hooks on (push: false). */
  async function commitGreeting(repo: TestRepo) {
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const commit = branch.commit(
      [{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }],
      {
        signoff: true,
        hooks: true
      }
    )
    return { branch, commit }
  }

  it('stay off unless asked: a failing hook does not run', async () => {
    const repo = repoWith()
    hooked(repo, '#!/bin/sh\nexit 1\n')
    const { made } = await run(repo, { push: false })
    expect(made).toHaveLength(1)
  })

  it('a formatter hook that fails after fixing the files is VALIDATION_FAILED: its fixes are never staged', async () => {
    const repo = repoWith()
    const envFile = join(repo.root, 'hook-env.txt')
    // Like lint-staged with a formatter: rewrites the staged file, fails once so it gets staged.
    hooked(
      repo,
      `#!/bin/sh\nenv > '${envFile}'\nif grep -q 'hello, world$' src/greet.txt; then\n  printf 'Hello, world!\\n' > src/greet.txt\n  echo 'files were modified by this hook' >&2\n  exit 1\nfi\nexit 0\n`
    )
    process.env.INPUT_GITHUB_TOKEN = 'ghs_hookcanary000000000000'
    cleanups.push(() => delete process.env.INPUT_GITHUB_TOKEN)
    const { commit } = await commitGreeting(repo)
    const error = await failure(commit)
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', details: { rule: 'commit-hook' } })
    expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
    expect(readFileSync(envFile, 'utf8')).not.toContain('ghs_hookcanary')
  })

  it('a hook that rewrites the approved file and stages it is SECURITY_VIOLATION; the branch is put back', async () => {
    const repo = repoWith()
    hooked(repo, "#!/bin/sh\nprintf 'pwned\\n' > src/greet.txt\ngit add src/greet.txt\n")
    const { branch, commit } = await commitGreeting(repo)
    const error = await failure(commit)
    expect(error).toMatchObject({ code: 'SECURITY_VIOLATION', details: { rule: 'hook-tampered' } })
    expect(error.message).toContain('the committed tree is not the approved content')
    expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
    await branch.rollback()
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('a hook that rewrites files in the work tree without staging them leaves the work tree as the commit (push: false hands it to a pull-request step)', async () => {
    const repo = repoWith()
    // The committed tree is the approved one; what the hook left unstaged would otherwise be
    // committed by create-pull-request, which takes the work tree's changes as they are.
    hooked(
      repo,
      "#!/bin/sh\nprintf 'unreviewed\\n' > src/greet.txt\nprintf 'planted\\n' > src/planted.txt\n"
    )
    await (
      await commitGreeting(repo)
    ).commit
    expect(repo.git('log', '--format=%s', '-1')).toBe(MESSAGE.split('\n')[0])
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    expect(readFileSync(join(repo.dir, 'src/greet.txt'), 'utf8')).not.toContain('unreviewed')
  })

  it('a hook that writes a filter into .git/config and .git/info/attributes is SECURITY_VIOLATION; .git is put back', async () => {
    const repo = repoWith()
    const config = readFileSync(join(repo.dir, '.git/config'), 'utf8')
    hooked(
      repo,
      '#!/bin/sh\ngit config filter.evil.smudge "touch ../pwned; cat"\nmkdir -p .git/info\necho "* filter=evil" >> .git/info/attributes\ngit update-ref refs/heads/planted HEAD\n'
    )
    const { branch, commit } = await commitGreeting(repo)
    const error = await failure(commit)
    expect(error).toMatchObject({ code: 'SECURITY_VIOLATION', details: { rule: 'hook-tampered' } })
    expect(error.message).toMatch(/config changed/)
    expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).toBe(config)
    expect(existsSync(join(repo.dir, '.git/info/attributes'))).toBe(false)
    expect(repo.git('branch', '--list', 'planted')).toBe('')
    await branch.rollback()
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(existsSync(join(repo.root, 'pwned'))).toBe(false)
  })

  it('where putting back what the hooks left fails, .git is put back before the run says why', async () => {
    const repo = repoWith()
    const config = readFileSync(join(repo.dir, '.git/config'), 'utf8')
    hooked(repo, '#!/bin/sh\ngit config filter.evil.smudge "touch ../pwned; cat"\n')
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const request = { message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }
    const stuck = new Error('EPERM: a folder a hook closed')
    const guardHooks = () => Promise.resolve(() => Promise.reject(stuck))
    const error = await branch
      .commit([request], { signoff: true, hooks: true, guardHooks })
      .catch((caught: unknown) => caught)
    expect(error).toBe(stuck)
    expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).toBe(config)
  })

  it('a post-commit hook that stages what no one reviewed (over a tracked file, a new script) changes nothing: the index is put back before anything is checked out from it', async () => {
    const repo = repoWith()
    const dir = join(repo.dir, '.git', 'hooks')
    mkdirSync(dir, { recursive: true })
    const stage = (path: string, mode: string) =>
      `git update-index --add --cacheinfo ${mode},$(echo evil | git hash-object -w --stdin),${path}`
    writeFileSync(
      join(dir, 'post-commit'),
      `#!/bin/sh
${stage('src/greet.txt', '100644')}
${stage('evil.sh', '100755')}
`
    )
    chmodSync(join(dir, 'post-commit'), 0o755)
    const { commit } = await commitGreeting(repo)
    await commit
    expect(repo.git('log', '--format=%s', '-1')).toBe(MESSAGE.split('\n')[0])
    expect(repo.git('diff', '--cached', 'HEAD', '--name-only')).toBe('')
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    expect(existsSync(join(repo.dir, 'evil.sh'))).toBe(false)
    expect(readFileSync(join(repo.dir, 'src/greet.txt'), 'utf8')).not.toContain('evil')
  })

  it.each([
    [
      'a MERGE_HEAD naming a commit no one reviewed',
      'git rev-parse HEAD > .git/MERGE_HEAD',
      'MERGE_HEAD'
    ],
    ['a link from .git to the work tree', 'ln -s .. .git/escape', 'escape'],
    ['a shallow file', 'git rev-parse HEAD > .git/shallow', 'shallow']
  ])(
    'a post-commit hook that leaves %s in .git is SECURITY_VIOLATION; it is taken away',
    async (_name, body, left) => {
      const repo = repoWith()
      const dir = join(repo.dir, '.git', 'hooks')
      mkdirSync(dir, { recursive: true })
      writeFileSync(
        join(dir, 'post-commit'),
        `#!/bin/sh
${body}
`
      )
      chmodSync(join(dir, 'post-commit'), 0o755)
      const { branch, commit } = await commitGreeting(repo)
      const error = await failure(commit)
      expect(error).toMatchObject({
        code: 'SECURITY_VIOLATION',
        details: { rule: 'hook-tampered' }
      })
      expect(existsSync(join(repo.dir, '.git', left))).toBe(false)
      await branch.rollback()
      expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
    }
  )

  it('a hook that runs past its limit is killed, its lock taken away: VALIDATION_FAILED, nothing committed', async () => {
    const repo = repoWith()
    const pidFile = join(repo.root, 'hook.pid')
    hooked(repo, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 600\n`)
    const { branch } = await prepare(repo, { push: false })
    // Long enough for git and the hook to start on a loaded machine: the pid is read below.
    branch.git.hookLimitMs = () => 3_000
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const request = { message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }
    const error = await failure(branch.commit([request], { signoff: true, hooks: true }))
    expect(error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { rule: 'commit-hook', timed_out: true, exit_code: 124 }
    })
    // The whole group went: the hook's sleep is not left running (where the hook got as far as
    // writing its pid before the limit: on a loaded machine it may not have).
    if (existsSync(pidFile)) {
      const hook = Number(readFileSync(pidFile, 'utf8'))
      expect(
        existsSync(`/proc/${hook}`) && !readFileSync(`/proc/${hook}/stat`, 'utf8').includes(') Z')
      ).toBe(false)
    }
    expect(existsSync(join(repo.dir, '.git', 'index.lock'))).toBe(false)
    await branch.rollback()
    expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('a post-commit hook that runs past its limit: the commit it followed is taken back, VALIDATION_FAILED', async () => {
    const repo = repoWith()
    const dir = join(repo.dir, '.git', 'hooks')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'post-commit'), '#!/bin/sh\nexec sleep 600\n')
    chmodSync(join(dir, 'post-commit'), 0o755)
    const { branch } = await prepare(repo, { push: false })
    branch.git.hookLimitMs = () => 3_000
    await branch.create()
    const tip = repo.git('rev-parse', 'HEAD')
    await branch.apply(GREETING, ['src/greet.txt'])
    const request = { message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }
    const error = await failure(branch.commit([request], { signoff: true, hooks: true }))
    expect(error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { rule: 'commit-hook', timed_out: true }
    })
    expect(repo.git('rev-parse', 'HEAD')).toBe(tip)
    await branch.rollback()
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('a hook that keeps failing is VALIDATION_FAILED with its output', async () => {
    const repo = repoWith()
    hooked(repo, '#!/bin/sh\necho "lint: 3 problems" >&2\nexit 1\n')
    const { branch, commit } = await commitGreeting(repo)
    const error = await failure(commit)
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', details: { rule: 'commit-hook' } })
    expect(String(error.details.stderr)).toContain('lint: 3 problems')
    await branch.rollback()
    expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})

describe('ChangeBranch: one commit per plan step', () => {
  it('commits each request separately with exactly its files', async () => {
    const repo = repoWith()
    const readme = modify('README.md', '# Demo\n', '# Demo, greeted\n')
    const { branch } = await prepare(repo, { plannedPaths: ['src/greet.txt', 'README.md'] })
    await branch.create()
    await branch.apply(GREETING + readme, ['src/greet.txt', 'README.md'])
    const made = await branch.commit(
      [
        {
          message: 'fix(src): step one changes the greeting',
          patch: GREETING,
          paths: ['src/greet.txt']
        },
        {
          message: 'docs(readme): step two mentions the greeting',
          patch: readme,
          paths: ['README.md']
        }
      ],
      { signoff: false }
    )
    expect(made).toHaveLength(2)
    expect(repo.git('show', '--name-only', '--format=', made[0]!.sha)).toBe('src/greet.txt')
    expect(repo.git('show', '--name-only', '--format=', made[1]!.sha)).toBe('README.md')
    expect(repo.git('rev-parse', `${made[1]!.sha}^`)).toBe(made[0]!.sha)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(existsSync(join(repo.dir, 'README.md'))).toBe(true)
  })
})
