import { expect, it } from 'vitest'
import { toAgentError } from '../../src/contract/index.js'

it.each([
  ['EXDEV', 'another mount'],
  ['ENOSPC', 'the disk is full'],
  ['EROFS', 'read-only']
])('%s from the file system is ENVIRONMENT_ERROR naming what and where', (errno, what) => {
  const error = Object.assign(new Error(`${errno}: failed, rename 'a' -> 'b'`), {
    code: errno,
    path: '/work/tree/vendor/cache'
  })
  const agent = toAgentError(error)
  expect(agent).toMatchObject({
    code: 'ENVIRONMENT_ERROR',
    recoverable: true,
    details: { errno, path: '/work/tree/vendor/cache' }
  })
  expect(agent.message).toContain(what)
})
