/**
 * The environment the programs that build a jail get on the host (src/sandbox/environment.ts):
 * nothing that makes them load what a command could have left in the work tree.
 */
import { expect, it } from 'vitest'
import { jailEnvironment } from '../../src/sandbox/environment.js'

it('keeps a LANGUAGE naming a folder (gettext would read a catalog there) for the command alone', () => {
  const { host, restore } = jailEnvironment({
    LANG: 'C.UTF-8',
    LANGUAGE: '../../../../work/repo/x',
    PATH: '/usr/bin'
  })
  expect(host.LANGUAGE).toBeUndefined()
  expect(host.LANG).toBe('C.UTF-8')
  expect(restore).toContain("export LANGUAGE='../../../../work/repo/x'\n")
})

it('hands a LANGUAGE of language names to the host programs as it is', () => {
  const { host, restore } = jailEnvironment({ LANGUAGE: 'de:fr_FR', PATH: '/usr/bin' })
  expect(host.LANGUAGE).toBe('de:fr_FR')
  expect(restore).not.toContain('LANGUAGE')
})
