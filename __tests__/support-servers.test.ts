import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as core from '@actions/core'
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { parseOutputFile } from './support/action-runner.js'
import { startGitHubServer, type GitHubServer } from './support/github-server.js'
import {
  lastUserMessage,
  replyByMatch,
  startModelServer,
  type ModelServer,
  type ReplyScript
} from './support/model-server.js'
import { copyDirFiles, createRepo, type TestRepo } from './support/repo.js'
import { until } from './support/until.js'
import { answeredTogether } from './support/answered-together.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function modelServer(script: ReplyScript): Promise<ModelServer> {
  const server = await startModelServer(script)
  cleanups.push(() => server.close())
  return server
}

function client(server: ModelServer, maxRetries = 0): OpenAI {
  return new OpenAI({ baseURL: server.url, apiKey: 'test-key', maxRetries })
}

const ask = (text: string) => ({
  model: 'gpt-test',
  messages: [{ role: 'user' as const, content: text }]
})

describe('model server', () => {
  it('answers a chat completion with content, the requested model and usage', async () => {
    const server = await modelServer([
      'hello there',
      { content: 'counted', usage: { prompt_tokens: 11, completion_tokens: 3 } }
    ])
    const openai = client(server)

    const first = await openai.chat.completions.create(ask('say hello'))
    expect(first.object).toBe('chat.completion')
    expect(first.model).toBe('gpt-test')
    expect(first.choices[0].message).toMatchObject({ role: 'assistant', content: 'hello there' })
    expect(first.choices[0].finish_reason).toBe('stop')
    expect(first.usage).toEqual({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 })

    const second = await openai.chat.completions.create(ask('count'))
    expect(second.usage).toEqual({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 })

    expect(server.requests.map((request) => request.path)).toEqual([
      '/v1/chat/completions',
      '/v1/chat/completions'
    ])
    expect(server.requests[0].body.messages[0].content).toBe('say hello')
    expect(server.requests[0].endedAt).toBeGreaterThanOrEqual(server.requests[0].startedAt)
  })

  it('streams a reply the SDK assembles from chunks, with usage when asked', async () => {
    const server = await modelServer(['streamed content arrives in pieces'])
    const stream = await client(server).chat.completions.create({
      ...ask('stream please'),
      stream: true,
      stream_options: { include_usage: true }
    })
    let content = ''
    let contentChunks = 0
    let finishReason: string | null = null
    let usage: OpenAI.CompletionUsage | undefined | null
    for await (const chunk of stream) {
      const choice = chunk.choices[0]
      if (choice?.delta.content) {
        content += choice.delta.content
        contentChunks += 1
      }
      if (choice?.finish_reason) finishReason = choice.finish_reason
      if (chunk.usage) usage = chunk.usage
    }
    expect(content).toBe('streamed content arrives in pieces')
    expect(contentChunks).toBeGreaterThan(1)
    expect(finishReason).toBe('stop')
    expect(usage?.completion_tokens).toBeGreaterThan(0)
  })

  it('sends a 429 with retry-after that the SDK waits out and retries', async () => {
    const server = await modelServer([
      { status: 429, headers: { 'retry-after': '1' }, content: 'slow down' },
      'after the wait'
    ])
    const started = Date.now()
    const reply = await client(server, 2).chat.completions.create(ask('retry me'))
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect(reply.choices[0].message.content).toBe('after the wait')
    expect(server.requests).toHaveLength(2)
  })

  it('cuts a stream mid-way so the SDK throws', async () => {
    const server = await modelServer([{ content: 'never finished', cutStreamAfter: 2 }])
    const stream = await client(server).chat.completions.create({
      ...ask('cut me'),
      stream: true
    })
    let received = ''
    await expect(
      (async () => {
        for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? ''
      })()
    ).rejects.toThrow()
    expect(received).not.toBe('never finished')
  })

  it('sends a malformed body that makes the SDK throw', async () => {
    const server = await modelServer([{ body: '{"id": "chatcmpl-1", "choices": [' }])
    await expect(client(server).chat.completions.create(ask('break'))).rejects.toThrow()
  })

  it('sends an OpenAI-style error body for a non-2xx status', async () => {
    const server = await modelServer([{ status: 400, content: 'bad model' }])
    const error = await client(server)
      .chat.completions.create(ask('fail'))
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('bad model')
  })

  it('records the Authorization header', async () => {
    const server = await modelServer(['ok'])
    await client(server).chat.completions.create(ask('who am I'))
    expect(server.requests[0].headers.authorization).toBe('Bearer test-key')
  })

  it('tracks overlapping requests', async () => {
    let next = 0
    const server = await modelServer(
      answeredTogether(2, () => ({ content: ['a', 'b'][next++]!, delayMs: 50 }))
    )
    const openai = client(server)
    const replies = await Promise.all([
      openai.chat.completions.create(ask('one')),
      openai.chat.completions.create(ask('two'))
    ])
    expect(replies.map((reply) => reply.choices[0].message.content).sort()).toEqual(['a', 'b'])
    expect(server.maxConcurrent).toBe(2)
  })

  it('fails loudly once the script is exhausted', async () => {
    const server = await modelServer(['only one'])
    const openai = client(server)
    await openai.chat.completions.create(ask('first'))
    const error = await openai.chat.completions.create(ask('second')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(String(error)).toContain('script exhausted after 1 replies')
  })

  it('routes replies by the last user message with replyByMatch', async () => {
    const server = await modelServer(
      replyByMatch([
        { contains: 'alpha', reply: 'A' },
        { contains: 'beta', reply: { content: 'B' } }
      ])
    )
    const openai = client(server)
    const beta = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'alpha was earlier' },
        { role: 'assistant', content: 'noted' },
        { role: 'user', content: [{ type: 'text', text: 'now about beta' }] }
      ]
    })
    expect(beta.choices[0].message.content).toBe('B')
    expect(lastUserMessage(server.requests[0])).toBe('now about beta')

    const alpha = await openai.chat.completions.create(ask('alpha please'))
    expect(alpha.choices[0].message.content).toBe('A')

    const error = await openai.chat.completions.create(ask('gamma?')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(String(error)).toContain('gamma?')
  })

  it('answers on the Azure-style path too', async () => {
    const server = await modelServer(['azure'])
    const openai = new OpenAI({
      baseURL: server.url.replace(/\/v1$/, '/openai/v1'),
      apiKey: 'test-key',
      maxRetries: 0
    })
    const reply = await openai.chat.completions.create(ask('hi'))
    expect(reply.choices[0].message.content).toBe('azure')
    expect(server.requests[0].path).toBe('/openai/v1/chat/completions')
  })

  it('closes promptly while a request hangs', async () => {
    const server = await startModelServer([{ hang: true }])
    const outcome = fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask('wait forever'))
    }).then(
      () => 'answered',
      (error: unknown) => error
    )
    await until(() => server.requests.length > 0, 'the request')
    // Promptly: close() ends the hanging request rather than waiting for it (it never ends).
    await server.close()
    expect(await outcome).toBeInstanceOf(Error)
    expect(server.requests[0].endedAt).toBeDefined()
  })
})

describe('GitHub server', () => {
  async function gitHubServer(): Promise<GitHubServer> {
    const server = await startGitHubServer()
    cleanups.push(() => server.close())
    return server
  }

  const call = async (server: GitHubServer, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: 'token ghs_test' },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }

  it('answers the default routes and records the calls', async () => {
    const server = await gitHubServer()
    const repo = '/repos/acme/widgets'

    const comment = await call(server, 'POST', `${repo}/issues/7/comments`, { body: 'It failed' })
    expect(comment.status).toBe(201)
    expect(comment.body).toMatchObject({ body: 'It failed' })
    expect(comment.body.id).toEqual(expect.any(Number))
    expect(comment.body.html_url).toMatch(/^https:\/\/github\.com\/acme\/widgets\/issues\/7#/)

    const labels = await call(server, 'POST', `${repo}/issues/7/labels`, { labels: ['bot', 'x'] })
    expect(labels).toEqual({ status: 200, body: [{ name: 'bot' }, { name: 'x' }] })

    const issue = await call(server, 'GET', `${repo}/issues/7`)
    expect(issue).toEqual({
      status: 200,
      body: { number: 7, title: 'Issue 7', body: '', labels: [] }
    })

    expect((await call(server, 'DELETE', `${repo}/git/refs/heads/fix/thing`)).status).toBe(204)
    expect(await call(server, 'GET', `${repo}/pulls?state=open`)).toEqual({
      status: 404,
      body: { message: 'Not Found' }
    })

    expect(server.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `POST ${repo}/issues/7/comments`,
      `POST ${repo}/issues/7/labels`,
      `GET ${repo}/issues/7`,
      `DELETE ${repo}/git/refs/heads/fix/thing`,
      `GET ${repo}/pulls`
    ])
    expect(server.requests[0].body).toEqual({ body: 'It failed' })
    expect(server.requests[0].headers.authorization).toBe('token ghs_test')
  })

  it('lets a route override the defaults for its first N matches', async () => {
    const server = await gitHubServer()
    server.route({
      method: 'post',
      path: /\/issues\/\d+\/comments$/,
      status: 500,
      body: { message: 'boom' },
      times: 1
    })
    server.route({ method: 'GET', path: '/repos/acme/widgets/issues/3', body: { number: 3 } })

    const path = '/repos/acme/widgets/issues/3/comments'
    expect(await call(server, 'POST', path, { body: 'x' })).toEqual({
      status: 500,
      body: { message: 'boom' }
    })
    expect((await call(server, 'POST', path, { body: 'x' })).status).toBe(201)
    expect(await call(server, 'GET', '/repos/acme/widgets/issues/3')).toEqual({
      status: 200,
      body: { number: 3 }
    })
  })
})

describe('test repositories', () => {
  function repoFor(files: Record<string, string>, branch?: string): TestRepo {
    const repo = createRepo({ files, branch, prefix: 'selftest' })
    cleanups.push(() => repo.cleanup())
    return repo
  }

  it('creates a work tree whose bare origin has the branch and the files', () => {
    const repo = repoFor({ 'README.md': '# Widgets\n', 'src/deep/util.ts': 'export {}\n' }, 'trunk')

    expect(repo.gitOrigin('ls-tree', '-r', '--name-only', 'trunk').split('\n')).toEqual([
      'README.md',
      'src/deep/util.ts'
    ])
    expect(repo.git('rev-parse', '--abbrev-ref', '@{upstream}')).toBe('origin/trunk')
    expect(repo.git('log', '--format=%s')).toBe('initial')
    expect(repo.read('src/deep/util.ts')).toBe('export {}\n')
    expect(repo.git('status', '--porcelain')).toBe('')

    repo.write('README.md', '# Widgets!\n')
    expect(repo.git('status', '--porcelain')).toBe(' M README.md')
    const sha = repo.commitAll('docs: shout')
    expect(sha).toMatch(/^[0-9a-f]{40}$/)
    repo.git('push', '--quiet')
    expect(repo.gitOrigin('rev-parse', 'trunk')).toBe(sha)
  })

  it('throws with git’s stderr when a command fails', () => {
    const repo = repoFor({ 'a.txt': 'a' })
    expect(() => repo.git('checkout', 'no-such-branch')).toThrow(/no-such-branch/)
  })

  it('removes everything on cleanup', () => {
    const repo = createRepo({ files: {} })
    expect(existsSync(repo.origin)).toBe(true)
    repo.cleanup()
    expect(existsSync(repo.root)).toBe(false)
  })

  it('reads a folder into a files map with relative POSIX paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchsmith-copy-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    mkdirSync(join(dir, 'src', 'lib'), { recursive: true })
    writeFileSync(join(dir, 'package.json'), '{}\n')
    writeFileSync(join(dir, 'src', 'lib', 'math.ts'), 'export const one = 1\n')

    const files = copyDirFiles(dir)
    expect(files).toEqual({ 'package.json': '{}\n', 'src/lib/math.ts': 'export const one = 1\n' })
    const repo = repoFor(files)
    expect(repo.read('src/lib/math.ts')).toBe('export const one = 1\n')
  })
})

describe('GITHUB_OUTPUT parsing', () => {
  it('reads what @actions/core writes, and name=value lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchsmith-output-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'output')
    writeFileSync(file, '')
    const previous = process.env.GITHUB_OUTPUT
    process.env.GITHUB_OUTPUT = file
    try {
      core.setOutput('commits', '[\n  {"sha": "abc"}\n]')
      core.setOutput('success', true)
      core.setOutput('error-code', '')
    } finally {
      if (previous === undefined) delete process.env.GITHUB_OUTPUT
      else process.env.GITHUB_OUTPUT = previous
    }
    writeFileSync(file, 'files-changed=a.ts\n', { flag: 'a' })

    expect(parseOutputFile(readFileSync(file, 'utf8'))).toEqual({
      commits: '[\n  {"sha": "abc"}\n]',
      success: 'true',
      'error-code': '',
      'files-changed': 'a.ts'
    })
  })
})
