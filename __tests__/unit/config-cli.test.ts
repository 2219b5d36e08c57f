import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it, expect } from 'vitest'
import { parse } from 'yaml'
import { parseCliArgs, UsageError, usage } from '../../src/cli/args.js'
import {
  ACTION_INPUTS,
  GROUPED_SETTINGS,
  ConfigError,
  parseRunConfig,
  RunConfigSchema,
  SETTING_KEYS,
  SETTING_KINDS,
  settingName,
  type SettingKey
} from '../../src/config.js'
import { thrown } from '../support/errors.js'

const secretFile = join(mkdtempSync(join(tmpdir(), 'patchsmith-cli-')), 'secret')
writeFileSync(secretFile, 'x\n', { mode: 0o600 })

describe('settingName', () => {
  it.each([
    ['repo', 'repo'],
    ['fixPlan', 'fix-plan'],
    ['maxRepairs', 'max-repairs'],
    ['allowPlanCommands', 'allow-plan-commands'],
    ['baseUrl', 'base-url']
  ] as const)('names %s as %s', (key, name) => {
    expect(settingName(key)).toBe(name)
  })
})

describe('parseRunConfig', () => {
  it('fills in the defaults', () => {
    const config = parseRunConfig({})
    expect(config).toMatchObject({
      repo: '.',
      model: 'gpt-4.1',
      baseUrl: 'https://api.openai.com/v1',
      editFormat: 'udiff',
      validationCommands: [],
      allowPlanCommands: false,
      maxRepairs: 3,
      concurrency: 4,
      commandTimeout: 300,
      modelTimeout: 120,
      outputLimit: 1000,
      blockedPaths: [],
      push: true,
      signoff: true,
      commentOnFailure: true,
      failureLabel: 'automation-failed',
      uploadArtifact: true,
      artifactName: 'patchsmith-result',
      dryRun: false
    })
    expect(config.fixPlan).toBeUndefined()
  })

  it('parses text as the action gives it', () => {
    const config = parseRunConfig({
      maxRepairs: '0',
      push: 'false',
      dryRun: ' Yes ',
      signoff: 'off',
      validationCommands: 'npm test\n\n  npm run lint  \n',
      blockedPaths: ['docs/private/**'],
      model: '  gpt-test  '
    })
    expect(config.maxRepairs).toBe(0)
    expect(config.push).toBe(false)
    expect(config.dryRun).toBe(true)
    expect(config.signoff).toBe(false)
    expect(config.validationCommands).toEqual(['npm test', 'npm run lint'])
    expect(config.blockedPaths).toEqual(['docs/private/**'])
    expect(config.model).toBe('gpt-test')
  })

  it.each([
    [{ push: 'maybe' }, 'push'],
    [{ dryRun: 'nope' }, 'dry-run'],
    [{ maxRepairs: '11' }, 'max-repairs'],
    [{ maxRepairs: 'two' }, 'max-repairs'],
    [{ concurrency: '0' }, 'concurrency'],
    [{ commandTimeout: '1.5' }, 'command-timeout'],
    [{ baseUrl: 'not a url' }, 'base-url'],
    [{ editFormat: 'whole-file-v9' }, 'edit-format'],
    [{ artifactName: '  ' }, 'artifact-name']
  ])('refuses %j naming the setting %s', (input, name) => {
    const error = thrown(() => parseRunConfig(input as never))
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).setting).toBe(name)
    expect((error as ConfigError).message).toContain(`"${name}"`)
  })

  it('names the bad value of a boolean', () => {
    const error = thrown(() => parseRunConfig({ push: 'maybe' })) as ConfigError
    expect(error.message).toContain('maybe')
  })

  it('refuses unknown settings', () => {
    expect(thrown(() => parseRunConfig({ pushh: true } as never))).toBeInstanceOf(ConfigError)
  })
})

describe('settings as a user writes them', () => {
  it('reads `name: value` lines of the settings input, a list setting once per line', () => {
    const config = parseRunConfig({
      settings: [
        '# tuning',
        'model-timeout: 30',
        'model-headers: X-Team: a',
        'model-headers: X-Cost: b',
        'comment-on-failure: false'
      ]
    })
    expect(config.modelTimeout).toBe(30)
    expect(config.modelHeaders).toEqual(['X-Team: a', 'X-Cost: b'])
    expect(config.commentOnFailure).toBe(false)
    // A setting's own flag wins over its line.
    expect(parseRunConfig({ modelTimeout: '9', settings: 'model-timeout: 30' }).modelTimeout).toBe(
      9
    )
  })

  it('refuses a line that is not a grouped setting, naming it', () => {
    for (const line of ['max-attempts: 2', 'nonsense', 'model: x']) {
      const error = thrown(() => parseRunConfig({ settings: line }))
      expect(error, line).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).setting).toBe('settings')
    }
  })

  it('reads an issue number in the issue input', () => {
    for (const issue of ['42', '#42', ' 42 ']) {
      const config = parseRunConfig({ issue })
      expect(config.issueNumber).toBe(42)
      expect(config.issue).toBeUndefined()
    }
    expect(parseRunConfig({ issue: 'issue.json' }).issue).toBe('issue.json')
  })

  it('reads named pipeline steps among the validation commands', () => {
    const config = parseRunConfig({
      validationCommands:
        'format: npx prettier --check .\nnpm run build\nlint-fix: eslint --fix .\ntest: npm test'
    })
    expect(config.formatCommand).toBe('npx prettier --check .')
    expect(config.lintFixCommand).toBe('eslint --fix .')
    expect(config.testCommand).toBe('npm test')
    expect(config.validationCommands).toEqual(['npm run build'])
  })

  it('allows 1 + max-repairs draft rounds', () => {
    expect(parseRunConfig({}).maxAttempts).toBe(4)
    expect(parseRunConfig({ maxRepairs: '0' }).maxAttempts).toBe(1)
  })
})

describe('parseCliArgs', () => {
  it('reads the command and flags with separate and inline values', () => {
    const { command, settings, help } = parseCliArgs([
      'run',
      '--repo',
      '/tmp/repo',
      '--issue=issue.json',
      '--model',
      'gpt-test'
    ])
    expect(command).toBe('run')
    expect(help).toBe(false)
    expect(settings).toEqual({ repo: '/tmp/repo', issue: 'issue.json', model: 'gpt-test' })
  })

  it('reads --plan and --fix-plan as the fix plan', () => {
    expect(parseCliArgs(['run', '--plan', 'p.json']).settings).toEqual({ fixPlan: 'p.json' })
    expect(parseCliArgs(['run', '--fix-plan', 'q.yml']).settings).toEqual({ fixPlan: 'q.yml' })
    expect(parseCliArgs(['--triage', 't.json', '--output', 'o.json']).settings).toEqual({
      triageResult: 't.json',
      outputPath: 'o.json'
    })
  })

  it('reads switches: --push, --no-push, --push=false', () => {
    expect(parseCliArgs(['--no-push']).settings).toEqual({ push: false })
    expect(parseCliArgs(['--push']).settings).toEqual({ push: true })
    expect(parseRunConfig(parseCliArgs(['--push=false']).settings).push).toBe(false)
    expect(parseRunConfig(parseCliArgs(['--dry-run']).settings).dryRun).toBe(true)
    expect(parseRunConfig(parseCliArgs(['--no-signoff']).settings).signoff).toBe(false)
  })

  it('collects a repeated --validation-command in order', () => {
    const { settings } = parseCliArgs([
      'run',
      '--validation-command',
      'npm test',
      '--validation-command=npm run lint',
      '--validation-commands',
      'make check'
    ])
    expect(settings.validationCommands).toEqual(['npm test', 'npm run lint', 'make check'])
    expect(parseRunConfig(settings).validationCommands).toEqual([
      'npm test',
      'npm run lint',
      'make check'
    ])
  })

  it('reads --max-repairs 2 as the number 2 once parsed', () => {
    const { settings } = parseCliArgs(['run', '--max-repairs', '2'])
    expect(parseRunConfig(settings).maxRepairs).toBe(2)
  })

  it('reads --help and -h', () => {
    expect(parseCliArgs(['--help']).help).toBe(true)
    expect(parseCliArgs(['run', '-h']).help).toBe(true)
  })

  it.each([
    [['run', '--frobnicate', 'x']],
    [['run', '--no-such-switch']],
    [['run', '--plan']],
    [['run', '--max-repairs']],
    [['run', '--validation-command']],
    [['run', 'extra']],
    [['run', '--no-plan']],
    [['run', '--no-push=true']],
    [['run', '--plan', '--no-push']],
    [['run', '--issue', '--repo', '.']]
  ])('refuses %j with a UsageError', (argv) => {
    const error = thrown(() => parseCliArgs(argv))
    expect(error).toBeInstanceOf(UsageError)
  })

  it('names the unknown flag and the flag that needs a value', () => {
    expect((thrown(() => parseCliArgs(['--frobnicate'])) as Error).message).toContain(
      '--frobnicate'
    )
    expect((thrown(() => parseCliArgs(['--plan'])) as Error).message).toContain('--plan')
  })
})

describe('action.yml and the settings', () => {
  const action = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
    inputs: Record<string, { default?: string }>
  }
  const inputs = Object.keys(action.inputs)
  const names = new Map(SETTING_KEYS.map((key) => [settingName(key), key] as const))

  it('declares inputs', () => {
    expect(inputs.length).toBeGreaterThan(10)
  })

  it('has a setting with a CLI flag for every input', () => {
    for (const input of inputs) {
      const key = names.get(input)
      expect(key, `input "${input}" has no setting`).toBeDefined()
      expect(Object.keys(RunConfigSchema.shape)).toContain(key)
      // Secrets come from a file on the command line, never from argv itself.
      const secret = input === 'api-key' || input === 'github-token'
      const flag = secret ? `--${input}-file` : `--${input}`
      const value = SETTING_KINDS[key!] === 'boolean' ? [flag] : [flag, secret ? secretFile : 'x']
      const { settings } = parseCliArgs(value)
      expect(Object.keys(settings), `flag ${flag}`).toEqual([key])
    }
  })

  it('declares the inputs of ACTION_INPUTS, at most 30 of them', () => {
    expect(inputs).toEqual(ACTION_INPUTS)
    expect(inputs.length).toBeLessThanOrEqual(30)
  })

  it('reaches every setting: as an input, a `settings` line, or a merged form', () => {
    const merged = [
      'issueNumber', // `issue: 42`
      'maxAttempts', // 1 + max-repairs
      'formatCommand', // `format:` … lines of validation-commands
      'formatFixCommand',
      'lintCommand',
      'lintFixCommand',
      'typecheckCommand',
      'testCommand'
    ]
    const grouped = Object.values(GROUPED_SETTINGS).map((g) => g.key)
    const missing = SETTING_KEYS.filter(
      (key) => !inputs.includes(settingName(key)) && !grouped.includes(key) && !merged.includes(key)
    )
    expect(missing).toEqual([])
    for (const name of Object.keys(GROUPED_SETTINGS))
      expect(inputs, `${name} is grouped, not an input`).not.toContain(name)
  })

  it('lists every schema key in SETTING_KINDS', () => {
    expect([...SETTING_KEYS].sort()).toEqual(Object.keys(RunConfigSchema.shape).sort())
  })

  it('gives the same defaults in action.yml as in the schema', () => {
    const defaults = parseRunConfig({})
    for (const [input, declared] of Object.entries(action.inputs)) {
      if (declared.default === undefined || declared.default.includes('${{')) continue
      const key = names.get(input) as SettingKey
      if (defaults[key] === undefined) continue
      expect(parseRunConfig({ [key]: declared.default })[key], `input "${input}"`).toEqual(
        defaults[key]
      )
    }
  })

  it('describes every flag on a line of its own in --help; the secret ones as refused', () => {
    const lines = usage().split('\n')
    const usable = lines.slice(0, lines.indexOf('Refused:'))
    const refused = lines.slice(lines.indexOf('Refused:')).join('\n')
    for (const key of SETTING_KEYS) {
      const name = settingName(key)
      const flag = new RegExp(`^ {2}--(\\[no-\\])?${name}(?![\\w-]).* {2,}\\w`)
      const described = usable.filter((line) => flag.test(line))
      if (key === 'apiKey' || key === 'githubToken') {
        expect(described, name).toEqual([])
        expect(refused, name).toMatch(new RegExp(`--${name}(?![\\w-]).*`))
      } else expect(described, name).toHaveLength(1)
    }
  })

  it("gives each flag's default in --help as the schema has it", () => {
    const defaults = parseRunConfig({}) as Record<string, unknown>
    let checked = 0
    for (const line of usage().split('\n')) {
      const flag = /^ {2}--(?:\[no-\])?([a-z-]+)\b.* \((\S+)\)$/.exec(line)
      if (!flag) continue
      const key = names.get(flag[1]!)!
      const shown = defaults[key] === true ? 'on' : defaults[key] === false ? 'off' : defaults[key]
      expect(flag[2], line).toBe(String(shown))
      checked++
    }
    expect(checked).toBeGreaterThan(25)
  })
})
