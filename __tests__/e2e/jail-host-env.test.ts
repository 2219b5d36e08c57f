/**
 * The programs that build a command's jail run on the host, as root where Patchsmith is, in the
 * work tree, before the jail exists: the supervisor (setpriv), bubblewrap, unshare and its
 * script (mkdir, chown). A workflow's library path with an empty entry (what `X=/lib:$X` makes
 * when X was unset: the working directory) or a PATH holding a folder of the work tree would have
 * them load or run what one validation command left for the next one's jail. They get a
 * system PATH and no loader variables; the command gets the workflow's back inside its jail.
 * Through dist/, on the tree itself: bubblewrap and unshare as root, bubblewrap as a hosted
 * runner's user.
 */
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { DIST_WAYS } from '../support/sandbox-needs.js'
import { fruitRepo, kiwiInJail } from './fruit.js'

const cleanups = cleanupAfterEach()

type Way = readonly [string, string, string | undefined, boolean]

async function run(way: Way, validation: string, env: (dir: string) => Record<string, string>) {
  const [, backend, user] = way
  const repo = fruitRepo({ '.gitignore': 'node_modules/\n' })
  cleanups.push(() => repo.cleanup())
  const inputs = { 'validation-commands': validation, settings: 'validation-overlay: false' }
  const done = await kiwiInJail(repo, backend, inputs, env(repo.dir), user)
  return { repo, done }
}

describe.each(DIST_WAYS)('the programs that build the jail, %s', (...way) => {
  it.runIf(way[3])(
    'load no library from the work tree through an empty LD_LIBRARY_PATH entry; the command still gets the workflow’s',
    async () => {
      // Not libraries: a program that loaded one would fail to start.
      const plant = ['libcap-ng.so.0', 'libcap.so.2'].map((name) => `printf junk > ${name}`)
      const { repo, done } = await run(
        way,
        [plant.join(' && '), 'test "$LD_LIBRARY_PATH" = ":/opt/none" && sh check.sh'].join('\n'),
        () => ({ LD_LIBRARY_PATH: ':/opt/none' })
      )
      expect(done.exitCode, done.stdout).toBe(0)
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  )

  it.runIf(way[3])(
    'run no program from a folder of the work tree on the PATH; the command still finds it first',
    async () => {
      // It leaves its mark in the work tree, the one folder the jail's builders and the command
      // both see: the second command's jail is built after the first left bin/mkdir (the first
      // names /bin/mkdir: it runs again in the base check, after bin/mkdir is there).
      const fake = `/bin/mkdir -p bin && printf '#!/bin/sh\\necho x > ran-outside-the-jail\\nexec /bin/mkdir "$@"\\n' > bin/mkdir && chmod +x bin/mkdir`
      const { repo, done } = await run(
        way,
        `${fake}\ntest ! -e ran-outside-the-jail && test "$(command -v mkdir)" = "$PWD/bin/mkdir" && sh check.sh`,
        (dir) => ({ PATH: `${dir}/bin:${process.env.PATH}` })
      )
      expect(done.exitCode, done.stdout).toBe(0)
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
    }
  )
})

describe.each(DIST_WAYS.slice(0, 2))(
  'a workflow variable that changes how mount reads, %s',
  (...way) => {
    const [, backend, , runs] = way
    it.runIf(runs)(
      'POSIXLY_CORRECT in validation-env reaches the command, and the overlay is still mounted',
      async () => {
        const repo = fruitRepo()
        cleanups.push(() => repo.cleanup())
        const inputs = {
          'validation-commands': 'test "$POSIXLY_CORRECT" = 1 && sh check.sh',
          'validation-env': 'POSIXLY_CORRECT'
        }
        const done = await kiwiInJail(repo, backend, inputs, { POSIXLY_CORRECT: '1' })
        expect(done.exitCode, done.stdout).toBe(0)
        expect(repo.read('fruit.txt')).toBe('kiwi\n')
      }
    )
  }
)
