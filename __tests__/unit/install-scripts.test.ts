import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../../scripts/action-docs.js'

const json = (file: string) => JSON.parse(readFileSync(join(PROJECT_ROOT, file), 'utf8'))

describe('install scripts', () => {
  it("package.json's allowScripts names every dependency the lockfile says has one (npm 11 warns, npm 12 skips the others)", () => {
    const lock = json('package-lock.json') as {
      packages: Record<string, { hasInstallScript?: boolean }>
    }
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    const allowed = (json('package.json') as { allowScripts?: Record<string, boolean> })
      .allowScripts
    expect(withScripts.length).toBeGreaterThan(0)
    expect(withScripts.filter((name) => allowed?.[name] !== true)).toEqual([])
  })
})
