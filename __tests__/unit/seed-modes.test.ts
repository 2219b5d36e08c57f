import { describe, expect, it } from 'vitest'
import {
  codeCommitSettings,
  fileReplacements,
  readProject,
  replyBlocks
} from '../../src/modes/code-commit/index.js'
import { commitResult, commitStatus } from '../../src/modes/coding-task/index.js'
import { taskMessage } from '../../src/modes/coding-task/index.js'
import { parseRunConfig } from '../../src/config.js'
import { codingTaskSchema, ERROR_CODES, type ErrorCode } from '../../src/contract/index.js'
import { createRepo } from '../support/repo.js'

const failed = (code: ErrorCode) => ({
  success: false,
  error: { code, message: 'm', recoverable: false }
})

describe('CodingTask adapter', () => {
  it('maps every error code to SOFT_FAIL or HARD_FAIL', () => {
    const soft = ERROR_CODES.filter((code) => commitStatus(failed(code)) === 'SOFT_FAIL')
    expect(soft).toEqual(['GIT_CONFLICT', 'VALIDATION_FAILED', 'MODEL_ERROR', 'TIMEOUT'])
    expect(commitStatus(failed('SECURITY_VIOLATION'))).toBe('HARD_FAIL')
    expect(commitStatus(failed('INVALID_INPUT'))).toBe('HARD_FAIL')
    expect(commitStatus({ success: true, data: [] })).toBe('SUCCESS')
  })

  it('reads retries and tokens from the metrics', () => {
    const result = commitResult('T-1', 'agt/T-1', {
      ...failed('VALIDATION_FAILED'),
      metrics: { attempts: 3, tokens: { total: 420 }, stop_reason: 'same-failure' }
    })
    expect(result).toMatchObject({ retries: 2, llm_tokens_used: 420, commit_sha: '' })
    expect(result.notes).toEqual(['VALIDATION_FAILED: m', 'stopped: same-failure'])
  })

  it('ends the message with [agent:<id>] and the trailers', () => {
    const task = codingTaskSchema().parse({
      id: 'T-1',
      goal: 'g',
      paths: ['a'],
      license_tag: 'MIT'
    })
    expect(taskMessage('feat(a): add the thing to a\n\nFixes #1', task)).toBe(
      'feat(a): add the thing to a\n\n[agent:T-1]\n\nLicense-Tag: MIT'
    )
    const withIssue = { ...task, license_tag: undefined, issue_number: 9 }
    expect(taskMessage('feat(a): add the thing to a\n\nFixes #9', withIssue)).toBe(
      'feat(a): add the thing to a\n\n[agent:T-1]\n\nFixes #9'
    )
  })

  it.each([
    [{ id: '../x', goal: 'g', paths: ['a'] }, 'id'],
    [{ id: 'a..b', goal: 'g', paths: ['a'] }, 'id'],
    [{ id: 'x.lock', goal: 'g', paths: ['a'] }, 'id'],
    [{ id: 'T1', goal: 'g', paths: ['a'], license_tag: 'MIT\nSigned-off-by: x' }, 'license_tag'],
    [{ id: 'T1', goal: 'g', paths: [] }, 'paths']
  ])('refuses %j at %s', (task, field) => {
    const result = codingTaskSchema().safeParse(task)
    expect(result.success).toBe(false)
    expect(result.error!.issues[0]!.path[0]).toBe(field)
  })

  it('takes skeleton_patch as a string or a list', () => {
    expect(
      codingTaskSchema().parse({ id: 'T1', goal: 'g', paths: ['a'], skeleton_patch: '+x' })
        .skeleton_patch
    ).toEqual(['+x'])
  })
})

describe('code-commit adapter', () => {
  it('reads the paths and deletions a reply names', () => {
    expect(
      replyBlocks(
        'prose\n^^^src/a.rs\nfn a() {}\n^^^end\n^^^old.rs\n^^^delete\n^^^empty.rs\n^^^end\n'
      )
    ).toEqual([
      { path: 'src/a.rs', deletes: false },
      { path: 'old.rs', deletes: true },
      { path: 'empty.rs', deletes: false }
    ])
  })

  it('lists the latest replacements and removals in the seed syntax', () => {
    const text = fileReplacements(
      new Map([
        ['src/a.rs', 'fn a() {}'],
        ['old.rs', null]
      ])
    )
    expect(text).toBe('--- FILE REPLACEMENT src/a.rs ---\nfn a() {}\n--- FILE REMOVED old.rs ---\n')
  })

  it('always validates with build.sh, logs in agent-config/logs and keeps the commit local', () => {
    const config = parseRunConfig(
      codeCommitSettings({ repo: '/p', validationCommands: ['make lint'] })
    )
    expect(config).toMatchObject({
      repo: '/p',
      editFormat: 'whole-file',
      maxRepairs: 3,
      push: false,
      commentOnFailure: false,
      logDir: '/p/agent-config/logs',
      validationCommands: ['bash build.sh', 'make lint']
    })
    expect(parseRunConfig(codeCommitSettings({ repo: '/p', push: true })).push).toBe(true)
  })

  it('accepts "/agent-config/" in .gitignore and refuses a project without build.sh', () => {
    const repo = createRepo({
      prefix: 'cc-unit',
      files: { '.gitignore': '/agent-config/\n', 'build.sh': 'true\n' }
    })
    try {
      repo.write('agent-config/query.txt', 'q')
      repo.write('agent-config/codeRollup.txt', 'r')
      expect(readProject(repo.dir)).toEqual({ query: 'q', rollup: 'r' })
      repo.git('rm', '-q', 'build.sh')
      expect(() => readProject(repo.dir)).toThrow('build.sh is missing')
    } finally {
      repo.cleanup()
    }
  })
})
