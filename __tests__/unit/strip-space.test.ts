/** The commit message cleaned without a process reads exactly as `git stripspace` cleans it. */
import { execFileSync } from 'node:child_process'
import { expect, it } from 'vitest'
import { stripSpace } from '../../src/change/approved-commit.js'
import { printableMessage } from '../../src/git/commit-message.js'

it('stripSpace matches git stripspace on printable messages', () => {
  const messages = [
    '',
    '\n',
    'subject',
    'subject\n',
    '\n\n subject \t\n\n\n\tbody\t \n\n',
    'a\r\nb\r\n\r\n\r\nc',
    ' \n \t\n',
    'a\u000b \nb\f\n\n',
    'é  \n\n\u00a0\n\nlast'
  ]
  for (const message of messages) {
    const text = printableMessage(message)
    const git = execFileSync('git', ['stripspace'], { input: text, encoding: 'utf8' })
    expect(stripSpace(text)).toBe(git)
  }
})
