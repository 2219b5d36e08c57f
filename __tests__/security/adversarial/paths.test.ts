/**
 * SECURITY.md section (b), end to end, one theme of several: paths in the plan: traversal,
 * absolute, blocked, odd characters and lengths, refused before any model call. A real repository
 * with a bare origin, the GitHub loopback server and a model scripted to be compromised; each
 * refusal leaves nothing written and no canary in any output (./refused.ts).
 */
import { describe, it } from 'vitest'
import { expectRefused, create, modify } from './refused.js'
import { trackedHostileRuns } from '../tracked-runs.js'

const run = trackedHostileRuns()

describe('A. paths: refused in the plan before any model call (T01-T03, T09, T11, T12, T14)', () => {
  it.each([
    ['T01 dotdot', create('../evil.txt'), 'path-traversal'],
    ['T01 inner dotdot', modify('src/../.env'), 'path-traversal'],
    ['T01 dot', create('./x.txt'), 'non-canonical-path'],
    ['T02 home', modify('../../home/runner/.bashrc'), 'path-traversal'],
    ['T03 absolute', create('/etc/hosts'), 'absolute-path'],
    ['T03 drive', create('C:\\Windows\\x'), 'path-charset'],
    ['T09 .ENV', create('.ENV'), 'blocked-path'],
    ['T09 .Env.local', create('.Env.local'), 'blocked-path'],
    ['T09 SECRETS', create('config/SECRETS/db.json'), 'blocked-path'],
    ['T09 PEM', create('certs/server.PEM'), 'blocked-path'],
    ['T09 KEY', create('keys/id.KEY'), 'blocked-path'],
    ['T09 Deployment', create('Deployment/prod.yaml'), 'blocked-path'],
    ['T11 backslash', create('config\\secrets\\x.json'), 'path-charset'],
    ['T11 trailing space', create('server.pem '), 'path-charset'],
    ['T11 trailing dot', create('.env.'), 'path-charset'],
    ['T12 newline', create('src/x\ny'), 'path-charset'],
    ['T12 RLO', create('src/\u202Egpj.js'), 'path-charset'],
    ['T12 tab', create('src/a\tb.js'), 'path-charset'],
    ['T12 NUL', create('src/a.js\u0000.pem'), 'path-charset'],
    ['T12 tag', create('src/\u{E0041}.js'), 'path-charset'],
    ['T14 long segment', create(`src/${'x'.repeat(300)}.js`), 'path-charset']
  ])('%s', async (_name, changes, rule) => {
    expectRefused(await run({ changes }), { code: 'SECURITY_VIOLATION', rule, noModel: true })
  })

  it('T14: a 5,000-character path is refused before git runs', async () => {
    const hostile = await run({ changes: create(`${'d/'.repeat(2_500)}x.js`) })
    expectRefused(hostile, { code: 'INVALID_INPUT', noModel: true })
  })
})
