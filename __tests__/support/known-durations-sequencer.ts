import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Seconds each test file took in a measured run (file-seconds.json, written from one), so that
 * a clean clone, which has no vitest cache, still starts the longest files first: ordered by
 * their size instead, it ended with long files alone on a worker (a clean clone's suite took
 * 303 s against 241 s with the cache). These seconds decide, with or without a cache (the same
 * order everywhere); a file not listed counts as long, so a new one is not left to the end.
 */
const SECONDS = JSON.parse(
  readFileSync(new URL('./file-seconds.json', import.meta.url), 'utf8')
) as Record<string, number>
const UNLISTED = 10

export default class KnownDurationsSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const seconds = (file: TestSpecification) =>
      SECONDS[relative(file.project.config.root, file.moduleId).split('\\').join('/')] ?? UNLISTED
    const group = (file: TestSpecification) =>
      `${file.project.config.sequence.groupOrder}\0${file.project.name}`
    // Stable within a project: BaseSequencer's order of projects (and isolated first) is kept.
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) =>
        group(a.file) === group(b.file)
          ? seconds(b.file) - seconds(a.file) || a.index - b.index
          : a.index - b.index
      )
      .map(({ file }) => file)
  }
}
