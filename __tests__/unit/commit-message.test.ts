import { describe, it, expect } from 'vitest'
import { COMMIT_SUBJECT } from '../../src/contract/index.js'
import {
  acceptSubject,
  commitMessage,
  commitScope,
  commitType,
  printableMessage,
  templateSubject,
  type CommitType
} from '../../src/git/commit-message.js'

const SUBJECT = /^(fix|feat|docs|chore|refactor)\([a-z-]+\): .{10,100}$/
const SKIP = /\[(skip ci|ci skip|no ci|skip actions|actions skip)\]/i

describe('commitType', () => {
  it.each([
    ['bug', 'fix'],
    ['Bug', 'fix'],
    ['feature', 'feat'],
    ['ENHANCEMENT', 'feat'],
    ['documentation', 'docs'],
    ['maintenance', 'chore'],
    ['refactor', 'refactor']
  ] as const)('maps the classification %j to %s', (classification, type) => {
    expect(commitType({ classification }, 'patchsmith/issue-1')).toBe(type)
  })

  it('prefers the classification to the branch prefix', () => {
    expect(commitType({ classification: 'bug' }, 'docs/readme')).toBe('fix')
  })

  it.each([
    ['docs/fix-readme-typo', 'docs'],
    ['feat/dark-mode', 'feat'],
    ['feature/dark-mode', 'feat'],
    ['Chore/bump', 'chore'],
    ['refactor/split-module', 'refactor']
  ] as const)('falls back to the branch prefix of %j', (branch, type) => {
    expect(commitType({}, branch)).toBe(type)
    expect(commitType({ classification: 'question' }, branch)).toBe(type)
  })

  it('defaults to fix', () => {
    expect(commitType({}, 'patchsmith/issue-12')).toBe('fix')
    expect(commitType({ classification: 'unknown' }, 'main')).toBe('fix')
    expect(commitType({}, '')).toBe('fix')
  })
})

describe('commitScope', () => {
  it('uses the file name of one root file', () => {
    expect(commitScope(['README.md'])).toBe('readme')
    expect(commitScope(['.eslintrc.json'])).toBe('eslintrc')
  })

  it('uses the deepest shared folder, skipping generic ones', () => {
    expect(commitScope(['src/form/a.ts', 'src/form/b.ts'])).toBe('form')
    expect(commitScope(['src/form/validate/a.ts', 'src/form/validate/b.ts'])).toBe('validate')
    expect(commitScope(['packages/ui/src/button.ts'])).toBe('ui')
  })

  it.each([
    [['src/a.ts', 'docs/b.md']],
    [['README.md', 'src/form/a.ts']],
    [['src/x/a.ts', 'src/y/b.ts']],
    [['2024/notes.md']],
    [['src/Form_Utils/a.ts', 'src/Form_Utils/b.ts']],
    [['ÄÖÜ/x.ts']]
  ])('gives a non-empty [a-z-] scope for %j', (paths) => {
    const scope = commitScope(paths)
    expect(scope).toMatch(/^[a-z-]+$/)
    expect(scope).not.toMatch(/^-|-$/)
  })

  it('slugs folder names', () => {
    expect(commitScope(['src/Form_Utils/a.ts', 'src/Form_Utils/b.ts'])).toBe('form-utils')
  })
})

describe('templateSubject', () => {
  const long = 'The export button ' + 'does not work when the table is very large '.repeat(7)
  const titles = [
    'Bug',
    'x',
    '.',
    'Fix crash.',
    'Crash when saving an empty form',
    long,
    'A'.repeat(300),
    'word '.repeat(60),
    'Crash on save [skip ci]',
    '[skip ci]',
    '[ci skip] [no ci] [skip actions] [actions skip] Button broken',
    'Nested [skip [skip ci]ci] marker in the title',
    'Mixed case [SKIP CI] marker',
    'Line one\nline two\r\nline three\u2028four',
    '   spaced    out    title   '
  ]

  it.each(titles.flatMap((title) => ['fix', 'docs', 'refactor'].map((type) => [type, title])))(
    'makes a valid subject for type %s and title %j',
    (type, title) => {
      const subject = templateSubject(type as CommitType, 'form', title)
      expect(subject).toMatch(SUBJECT)
      expect(subject).toMatch(COMMIT_SUBJECT)
      expect(subject).not.toMatch(SKIP)
      expect(subject.startsWith(`${type}(form): `)).toBe(true)
    }
  )

  it('keeps the words of a normal title, lower-casing the first letter and dropping the final period', () => {
    expect(templateSubject('fix', 'form', 'Crash when saving an empty form.')).toBe(
      'fix(form): crash when saving an empty form'
    )
  })

  it('cuts a long title with an ellipsis at 100 characters', () => {
    const subject = templateSubject('fix', 'form', 'A'.repeat(300))
    const description = subject.slice('fix(form): '.length)
    expect(description.length).toBe(100)
    expect(description.endsWith('...')).toBe(true)
  })
})

describe('acceptSubject', () => {
  const valid = 'fix(form): reject empty email addresses'

  it('accepts a valid subject', () => {
    expect(acceptSubject(valid)).toBe(valid)
  })

  it('accepts one wrapped in backticks, surrounded by blank lines or followed by more lines', () => {
    expect(acceptSubject(`\`${valid}\``)).toBe(valid)
    expect(acceptSubject(`\`\`\`\n${valid}\n\`\`\``)).toBe(valid)
    expect(acceptSubject(`\n\n  ${valid}  \n`)).toBe(valid)
    expect(acceptSubject(`${valid}\n\nThis change makes the form refuse empty emails.`)).toBe(valid)
  })

  it('drops a final period', () => {
    expect(acceptSubject(`${valid}.`)).toBe(valid)
  })

  it.each([
    undefined,
    '',
    'Fix the form',
    'fix: reject empty email addresses',
    'Fix(form): reject empty email addresses',
    'fix(Form): reject empty email addresses',
    'fix(form2): reject empty email addresses',
    'style(form): reject empty email addresses',
    'fix(form):reject empty email addresses',
    'fix(form): too short',
    `fix(form): ${'x'.repeat(101)}`
  ])('refuses %j', (generated) => {
    expect(acceptSubject(generated)).toBeUndefined()
  })

  it.each(['[skip ci]', '[ci skip]', '[NO CI]', '[skip actions]', '[actions skip]'])(
    'refuses a subject with %s',
    (marker) => {
      expect(acceptSubject(`fix(form): reject empty email addresses ${marker}`)).toBeUndefined()
    }
  )
})

describe('commitMessage', () => {
  it('puts the subject first and Fixes #N after a blank line', () => {
    expect(commitMessage('fix(form): reject empty emails', 7)).toBe(
      'fix(form): reject empty emails\n\nFixes #7'
    )
  })
})

describe('printableMessage', () => {
  it('drops controls, bidi overrides and invisible marks, keeping line feeds and tabs', () => {
    const hostile =
      'fix(a): ok\u202Egnp.exe\u202C\r\n\r\nbody\u0007\u001b[31m red\u200B\tend\u2066x\u2069'
    expect(printableMessage(hostile)).toBe('fix(a): okgnp.exe\n\nbody[31m red\tendx')
  })

  it('leaves an ordinary message as it is', () => {
    const message = 'fix(readme): add a greeting\n\nFixes #5\n\nSigned-off-by: A <a@b.c>'
    expect(printableMessage(message)).toBe(message)
  })
})
