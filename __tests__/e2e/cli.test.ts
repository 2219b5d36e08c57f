import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { PROJECT_ROOT, runCli, runProgram, secretFlag } from '../support/action-runner.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { startProxyServer } from '../support/proxy-server.js'
import { typoCliArgs, typoRepo, typoReplies } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { runCliInProcess } from '../support/in-process.js'
import { until } from '../support/until.js'

const cleanups = cleanupAfterEach()

async function typoSetup() {
  const repo = typoRepo()
  cleanups.push(() => repo.cleanup())
  const server = await startModelServer(replyByMatch(typoReplies().replies))
  cleanups.push(() => server.close())
  const args = typoCliArgs(repo.dir, server.url)
  return { repo, server, args }
}

describe('patchsmith run (node dist/cli.js)', () => {
  it('commits without pushing, prints the JSON result on stdout and progress on stderr', async () => {
    const { repo, server, args } = await typoSetup()
    const run = await runCli(['--json', ...args, '--no-push'], {
      env: { OPENAI_API_KEY: 'sk-from-env-1234' }
    })
    expect(run.exitCode, run.stderr).toBe(0)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.success).toBe(true)
    const [commit] = result.data!
    expect(repo.git('rev-parse', 'refs/heads/docs/42-fix-typo-readme')).toBe(commit!.sha)
    expect(repo.gitOrigin('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
    expect(run.stderr).toMatch(/^patchsmith \[\d+ s\] Committed [0-9a-f]{40}/m)
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-from-env-1234')
  })

  it('ends with a short summary on stderr; the result JSON only in its file, stdout empty', async () => {
    const { repo, args } = await typoSetup()
    const output = `${repo.root}/result.json`
    const run = await runCli([...args, '--no-push', '--output', output], {
      env: { OPENAI_API_KEY: 'sk-from-env-1234' }
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toBe('')
    const result = JSON.parse(readFileSync(output, 'utf8')) as CodeAgentOutput
    const sha = result.data![0]!.sha
    const summary = run.stderr.slice(run.stderr.indexOf('\nCommitted on ') + 1)
    expect(summary).toMatch(/^Committed on docs\/42-fix-typo-readme, not pushed in \d+ s\n/)
    expect(summary).toContain(`\n  ${sha.slice(0, 12)} docs(readme): correct typo`)
    expect(summary).toContain('\n  files: README.md\n')
    expect(summary).toContain('\n  validation: `npm run lint` failed on the base, passed after\n')
    expect(summary).toContain(
      '\n  Verified (fixed-failing-test): npm run lint failed on the base and passes with the change\n'
    )
    expect(summary).toMatch(new RegExp(`\\n  result: ${output} \\(--json prints it\\)\\n$`))
    expect(run.stderr).not.toContain('"success"')
    expect(run.stderr).toMatch(/^patchsmith \[\d+ s\] Running `npm run lint`$/m)
  })

  it('says what a long validation command is doing while it runs, a line per interval', async () => {
    const { repo, args } = await typoSetup()
    const fifo = `${repo.root}/go`
    execFileSync('mkfifo', [fifo])
    // Blocks until the test writes to the FIFO; the base check then finds `done` and goes on.
    const command = `test -e ${repo.root}/done || cat ${fifo}`
    let released = false
    const run = await runCli(
      [...args, '--no-push', '--sandbox', 'off', '--validation-command', command],
      {
        env: { OPENAI_API_KEY: 'sk-from-env-1234', PATCHSMITH_PROGRESS_SECONDS: '0.05' },
        onStderr: (stderr) => {
          if (released || (stderr.match(/still running `test -e/g) ?? []).length < 2) return
          released = true
          writeFileSync(`${repo.root}/done`, '')
          writeFileSync(fifo, 'go\n')
        }
      }
    )
    expect(run.exitCode, run.stderr).toBe(0)
    expect(released).toBe(true)
    const still = run.stderr.split('\n').filter((line) => line.includes('still running `test -e'))
    expect(still[0]).toMatch(
      new RegExp(`^patchsmith \\[\\d+ s\\] still running \`${escape(command)}\` \\(\\d+ s\\)$`)
    )
    expect(run.stderr).toMatch(new RegExp(`\`${escape(command)}\` exited 0 after \\d+ s`))
  })

  it("--no-push commits on the plan's branch and leaves the user's branch where it was", async () => {
    const { repo, args } = await typoSetup()
    writeFileSync(`${repo.dir}/NOTES.md`, 'my notes\n')
    const main = repo.git('rev-parse', 'main')
    const run = await runCliInProcess([...args, '--no-push'], {
      env: { OPENAI_API_KEY: 'sk-from-env-1234' }
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(repo.git('rev-parse', 'main')).toBe(main)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('rev-parse', 'docs/42-fix-typo-readme^')).toBe(main)
    expect(repo.git('show', 'docs/42-fix-typo-readme:README.md')).toContain('Run the following')
    expect(repo.read('README.md')).toContain('Run teh following')
    expect(repo.git('status', '--porcelain')).toBe('?? NOTES.md')
    expect(repo.gitOrigin('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
    expect(run.stderr).toContain(
      'Not pushed: the commit is on docs/42-fix-typo-readme; main is as it was'
    )
  })

  it("rolls back on SIGINT while the model drafts: CANCELLED, exit 130, the user's edit in place", async () => {
    const repo = typoRepo()
    cleanups.push(() => repo.cleanup())
    const server = await startModelServer(() => ({ hang: true }))
    cleanups.push(() => server.close())
    writeFileSync(`${repo.dir}/NOTES.md`, 'my notes\n')
    const run = await runCli(['--json', ...typoCliArgs(repo.dir, server.url)], {
      env: { OPENAI_API_KEY: 'sk-from-env-1234' },
      signals: {
        when: until(() => server.requests.length > 0, 'the draft request'),
        send: ['SIGINT']
      }
    })
    expect(run.exitCode, run.stderr).toBe(130)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.error?.code).toBe('CANCELLED')
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('status', '--porcelain')).toBe('?? NOTES.md')
    expect(repo.git('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
    expect(repo.gitOrigin('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
  })

  it('writes the result to --output and keeps stdout free', async () => {
    const { repo, args } = await typoSetup()
    const output = `${repo.root}/out/result.json`
    const key = secretFlag('--api-key-file', 'k-1234')
    const run = await runCli([...args, ...key, '--output', output, '--dry-run'])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toBe('')
    const result = JSON.parse(readFileSync(output, 'utf8')) as CodeAgentOutput
    expect(result.data![0]!.sha).toBe('')
    expect(result.data![0]!.diff).toContain('+Run the following command:')
    // A dry run validates and rolls back: no branch, the work tree as it was.
    expect(repo.git('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
    expect(repo.read('README.md')).toContain('Run teh following')
  })

  it.each([
    ['--api-key', 'OPENAI_API_KEY'],
    ['--github-token', 'GITHUB_TOKEN']
  ])('refuses %s on its argv (exit 2, nothing run) and points to %s', async (flag, variable) => {
    const { repo, server, args } = await typoSetup()
    const run = await runCli([...args, flag, 'sk-on-argv-1234'])
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain(`set ${variable} or pass ${flag}-file FILE`)
    expect(server.requests).toHaveLength(0)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('refuses sandbox: required on a machine without one, before any model call', async () => {
    const { repo, server, args } = await typoSetup()
    const run = await runCli(['--json', ...args, '--sandbox', 'required'], {
      env: { OPENAI_API_KEY: 'sk-from-env-1234', PATCHSMITH_SANDBOX_BACKENDS: 'none' }
    })
    expect(run.exitCode).toBe(1)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'sandbox-unavailable' }
    })
    expect(server.requests).toHaveLength(0)
    expect(repo.git('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
  })

  it('exits 1 with the JSON result when the run is refused', async () => {
    const { repo, args } = await typoSetup()
    const key = secretFlag('--api-key-file', 'k-1234')
    const run = await runCli(['--json', ...args, ...key, '--blocked-paths', 'README.md'])
    expect(run.exitCode).toBe(1)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { path: 'README.md' }
    })
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it.each([
    [['run', '--no-such-flag'], 'Unknown flag "--no-such-flag"'],
    [['run', '--max-repairs'], '--max-repairs'],
    [['launch'], 'Unknown command "launch"'],
    [[], 'No command given'],
    [['run', '--max-repairs', 'many'], 'Setting "max-repairs"'],
    [['run', '--push=perhaps'], 'Setting "push"']
  ])(
    'exits 2 on bad usage %j: one line naming the problem, not the list',
    async (args, problem) => {
      const run = await runCli(args)
      expect(run.exitCode).toBe(2)
      expect(run.stderr).toMatch(/^patchsmith: [^\n]+; see patchsmith --help\n$/)
      expect(run.stderr).toContain(problem)
      expect(run.stdout).toBe('')
    }
  )

  it('--help groups the flags, one line each, the refused ones apart with why', async () => {
    const run = await runCli(['--help'])
    expect(run.exitCode, run.stderr).toBe(0)
    const lines = run.stdout.split('\n')
    for (const group of ['Input:', 'Model:', 'Validation:', 'Git:', 'Output:', 'Refused:'])
      expect(lines).toContain(group)
    expect(run.stdout).toMatch(/^ {2}--max-repairs N {2,}repairs after a failed apply/m)
    expect(run.stdout).toMatch(/^ {2}--\[no-\]push {2,}push the plan's branch/m)
    const refused = lines.slice(lines.indexOf('Refused:')).join('\n')
    expect(lines.slice(0, lines.indexOf('Refused:')).join('\n')).not.toMatch(/--api-key(?!-file)/)
    expect(refused).toContain('--api-key, --github-token')
    expect(refused).toContain('set OPENAI_API_KEY and GITHUB_TOKEN')
  })

  it('--version prints the package version', async () => {
    const run = await runCli(['--version'])
    expect(run.exitCode, run.stderr).toBe(0)
    const { version } = JSON.parse(readFileSync(`${PROJECT_ROOT}/package.json`, 'utf8')) as {
      version: string
    }
    expect(run.stdout).toBe(`${version}\n`)
  })
})

describe('patchsmith run behind a proxy', () => {
  // A name no resolver knows: only the proxy can reach it.
  const HOST = 'model.patchsmith.invalid'

  async function proxied() {
    const setup = await typoSetup()
    const port = Number(new URL(setup.server.url).port)
    const proxy = await startProxyServer({ [HOST]: port })
    cleanups.push(() => proxy.close())
    const args = typoCliArgs(setup.repo.dir, `http://${HOST}/v1`)
    return { ...setup, proxy, args }
  }

  it('reaches a model named by an unresolvable host through HTTP_PROXY', async () => {
    const { server, proxy, args } = await proxied()
    const run = await runCli(['--json', ...args, '--no-push'], {
      env: { OPENAI_API_KEY: 'sk-from-env-1234', HTTP_PROXY: proxy.url }
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect((JSON.parse(run.stdout) as CodeAgentOutput).success).toBe(true)
    expect(proxy.requests.length).toBeGreaterThan(0)
    expect(proxy.requests.every((line) => line.includes(HOST))).toBe(true)
    expect(server.requests.length).toBeGreaterThan(0)
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-from-env-1234')
  })

  it('goes direct for a host in NO_PROXY (here: and fails to resolve it)', async () => {
    const { server, proxy, args } = await proxied()
    const run = await runCli(['--json', ...args, '--no-push', '--model-retries', '0'], {
      env: {
        OPENAI_API_KEY: 'sk-from-env-1234',
        http_proxy: proxy.url,
        no_proxy: `localhost,.patchsmith.invalid`
      }
    })
    expect(run.exitCode).toBe(1)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.error!.code).toBe('MODEL_ERROR')
    expect(result.error!.message).toMatch(/ENOTFOUND|EAI_AGAIN/)
    expect(proxy.requests).toEqual([])
    expect(server.requests).toEqual([])
  })
})

describe('npm run demo', () => {
  it('runs the whole pipeline offline on recorded replies and says so', async () => {
    const run = await runProgram(['npm', 'run', '--silent', 'demo'], { timeoutMs: 120_000 })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain('RECORDED model replies')
    expect(run.stdout).toMatch(/"sha": "[0-9a-f]{40}"/)
    expect(run.stdout).toContain('docs(readme): correct typo in installation section')
    expect(run.stdout).toContain('docs/42-fix-typo-readme')
  }, 120_000)
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
