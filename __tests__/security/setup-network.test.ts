/**
 * Issue 24, point 1, through the action: setup-commands run on the base commit, before any
 * model call, in the sandbox with the network (a loopback "package server" fills node_modules);
 * validation then runs with the network closed and cannot reach that server. A failing setup
 * command ends the run before any model call; `validation-network: open` (a `settings:` line) is
 * shown in the result's metrics and the job summary. A backend missing here skips
 * (support/sandbox-needs.ts) unless PATCHSMITH_REQUIRE_SANDBOX=1.
 */
import { createServer, type Server } from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { leakedCanaries, type HostileOptions } from './hostile-run.js'
import { trackedHostileRuns } from './tracked-runs.js'
import { skipWithout } from '../support/sandbox-needs.js'

const tracked = trackedHostileRuns()
const BACKENDS = ['bubblewrap', 'unshare'] as const
const anyBackend = BACKENDS.some((backend) => !skipWithout(backend))

/** The "registry": what it served, and when (against the model's first request). */
let server: Server
let url: string
const served: Array<{ path: string; at: number }> = []

beforeAll(async () => {
  server = createServer((request, response) => {
    served.push({ path: request.url ?? '', at: Date.now() })
    response.end('module.exports = "package-bytes"\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})
afterAll(() => server.close())

/** Fetches with curl, or node's fetch where curl is missing. */
const fetchTo = (path: string, out: string) =>
  `(curl -fsS --max-time 5 -o ${out} ${url}${path} || node -e "fetch('${url}${path}',{signal:AbortSignal.timeout(5000)}).then(r=>r.text()).then(t=>require('fs').writeFileSync('${out}',t))")`

const install = () =>
  `mkdir -p node_modules/pkg && ${fetchTo('/pkg.js', 'node_modules/pkg/index.js')}`
const validate = () =>
  'cat node_modules/pkg/index.js; ' +
  `${fetchTo('/from-validation', '/tmp/reply')} >/dev/null 2>&1 && echo NET-REACHED || echo NET-CLOSED`

function ignoringModules(options: HostileOptions): HostileOptions {
  return {
    ...options,
    setup(repo) {
      repo.write('.gitignore', 'dist/\nnode_modules/\n')
      repo.commitAll('ignore node_modules')
    }
  }
}

describe.each(BACKENDS)('setup-commands under %s', (backend) => {
  it.skipIf(skipWithout(backend))(
    'install with the network before drafting; validation then runs offline and cannot reach the package server',
    async () => {
      served.length = 0
      const hostile = await tracked(
        ignoringModules({
          inputs: { 'setup-commands': install(), 'validation-commands': validate() },
          env: () => ({ PATCHSMITH_SANDBOX_BACKENDS: backend })
        })
      )
      const { result, model, repo } = hostile
      expect(result.success, JSON.stringify(result.error)).toBe(true)
      expect(result.metrics?.sandbox).toBe(backend)
      expect(result.metrics?.validation_network).toBe('closed')
      expect(served.map((entry) => entry.path)).toEqual(['/pkg.js'])
      expect(served[0]!.at).toBeLessThanOrEqual(model.requests[0]!.startedAt)
      const validation = result.data![0]!.validation_results[0]!
      expect(validation.stdout).toContain('package-bytes')
      expect(validation.stdout).toContain('NET-CLOSED')
      expect(readFileSync(join(repo.dir, 'node_modules/pkg/index.js'), 'utf8')).toContain(
        'package-bytes'
      )
      expect(hostile.run.summary).toMatch(/Validation network \| closed/)
      expect(leakedCanaries(hostile)).toEqual([])
    }
  )
})

describe('setup-commands and validation-network', () => {
  const skip = !anyBackend

  it.skipIf(skip)(
    'a failing setup command ends the run VALIDATION_FAILED setup-failed before any model call',
    async () => {
      const hostile = await tracked({
        inputs: {
          'setup-commands': 'echo "registry down" >&2; exit 3',
          'validation-commands': 'true'
        }
      })
      const { result, model, repo } = hostile
      expect(result.error?.code).toBe('VALIDATION_FAILED')
      expect(result.error?.details?.rule).toBe('setup-failed')
      expect(result.error?.message).toContain('registry down')
      expect(result.error?.recoverable).toBe(true)
      expect(hostile.run.exitCode).toBe(1)
      expect(model.requests).toHaveLength(0)
      expect(repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
      expect(repo.git('status', '--porcelain')).toBe('')
    }
  )

  it.skipIf(skip)(
    'validation-network: open (a settings line) lets validation reach it, in the metrics, summary and log',
    async () => {
      served.length = 0
      const hostile = await tracked(
        ignoringModules({
          inputs: {
            'setup-commands': install(),
            'validation-commands': validate(),
            settings: 'validation-network: open'
          }
        })
      )
      const { result, run } = hostile
      expect(result.success, JSON.stringify(result.error)).toBe(true)
      expect(result.metrics?.validation_network).toBe('open')
      expect(result.data![0]!.validation_results[0]!.stdout).toContain('NET-REACHED')
      expect(served.map((entry) => entry.path)).toContain('/from-validation')
      expect(run.summary).toMatch(/Validation network \| open \(commands could reach the network\)/)
      expect(run.stdout).toMatch(/::warning::.*validation-network: open/)
    }
  )
})
