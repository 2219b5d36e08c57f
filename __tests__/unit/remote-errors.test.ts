import { describe, expect, it } from 'vitest'
import { remoteReadError } from '../../src/git/remote-errors.js'

describe('remote errors', () => {
  it("name the network's own words, not git's advice after them", () => {
    const stderr = [
      'ssh: Could not resolve hostname github.com: Name or service not known',
      'fatal: Could not read from remote repository.',
      '',
      'Please make sure you have the correct access rights',
      'and the repository exists.'
    ].join('\n')
    const error = remoteReadError('origin', stderr, 'git@github.com:acme/widgets.git')
    expect(error.message).toBe(
      'Cannot reach the remote origin (git@github.com:acme/widgets.git): ssh: Could not resolve hostname github.com: Name or service not known'
    )
    const refused = remoteReadError(
      'origin',
      'ERROR: Repository not found.\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.',
      'git@github.com:acme/widgets.git'
    )
    expect(refused.message).toMatch(
      /Cannot read the remote origin .*: ERROR: Repository not found\.$/
    )
  })
})
