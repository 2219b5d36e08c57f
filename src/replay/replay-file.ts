import { createHash } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync
} from 'node:fs'
import { basename, dirname, extname, isAbsolute, join, relative } from 'node:path'
import { SETTING_KEYS, settingName, type RunConfig } from '../config.js'
import {
  InvalidInputError,
  SecurityViolationError,
  type CodeAgentInput
} from '../contract/index.js'
import { writeOutputFile } from '../report/index.js'
import type { RunRecorder } from './recorder.js'
import {
  commandSettings,
  REPLAYED_SETTINGS,
  replayedSettings,
  replaySchema,
  type Replay
} from './replay-format.js'

/** The longest replay file read: every prompt of a long run fits many times over. */
const MAX_REPLAY_BYTES = 32 * 1024 * 1024
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

interface RecordedRun {
  config: RunConfig
  input: CodeAgentInput
  /** The run wrote its own plan: the replay asks for it again. */
  generatedPlan: boolean
  baseCommit: string
  recorder: RunRecorder
  outcome: Replay['outcome']
  version: string
}

/** The run as a replay file's content, masked by the run's one masker, each reply's digest last. */
export function replayRecord(run: RecordedRun, mask: (text: string) => string): Replay {
  const { input, recorder } = run
  const unmasked = {
    patchsmith_replay: 1 as const,
    version: run.version,
    base_commit: run.baseCommit,
    input: {
      issue: input.issue,
      ...(input.triage_result ? { triage_result: input.triage_result } : {}),
      ...(run.generatedPlan ? {} : { fix_plan: input.fix_plan }),
      ...(input.repository_snapshot ? { repository_snapshot: input.repository_snapshot } : {})
    },
    settings: replayedSettings(run.config),
    commands: commandSettings(run.config),
    exchanges: recorder.exchanges.map((exchange) => ({
      label: exchange.label,
      attempt: exchange.attempt,
      messages: exchange.messages,
      reply: exchange.reply,
      finish_reason: exchange.finishReason,
      usage: exchange.usage
    })),
    commands_run: recorder.commands,
    outcome: run.outcome
  }
  const masked = JSON.parse(mask(JSON.stringify(unmasked))) as typeof unmasked
  return {
    ...masked,
    exchanges: masked.exchanges.map((exchange) => ({
      ...exchange,
      reply_sha256: replyDigest(exchange.reply)
    })) as Replay['exchanges']
  }
}

export function replyDigest(reply: string): string {
  return createHash('sha256').update(reply, 'utf8').digest('hex')
}

/**
 * Where a run's replay file goes: beside its result (`result.json` → `replay.json`,
 * `out.json` → `out.replay.json`), or in the log folder when the result goes to a device.
 */
export function replayPath(outputPath: string, logDir: string): string {
  const underDev = relative('/dev', outputPath)
  if (underDev === '' || (!underDev.startsWith('..') && !isAbsolute(underDev)))
    return join(logDir, 'replay.json')
  const name = basename(outputPath)
  if (name === 'result.json') return join(dirname(outputPath), 'replay.json')
  const stem = name.slice(0, name.length - extname(name).length) || name
  return join(dirname(outputPath), `${stem}.replay.json`)
}

/** Written as the result is: never through a link, a device or fifo as `>` would. */
export function writeReplayFile(path: string, replay: Replay): void {
  writeOutputFile(path, `${JSON.stringify(replay, null, 1)}\n`, 'replay-file')
}

/**
 * A replay file (or the artifact folder holding `replay.json`, at the top or up to two folders
 * down), read as untrusted input: a regular file only, capped in size, plain JSON without
 * prototype keys, every field checked, and no setting a replay never takes from a recording.
 */
export function readReplayFile(source: string): Replay {
  const path = replayFileIn(source)
  const value = parseJson(readCapped(path), path)
  const settings = (value as { settings?: unknown }).settings
  if (settings && typeof settings === 'object') refuseUnreplayed(Object.keys(settings), path)
  const result = replaySchema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  const field = issue.path.map(String).join('.')
  throw new InvalidInputError(
    `${path} is not a Patchsmith replay file: ${field || 'the file'}: ${issue.message} [rule not-a-replay].`,
    { field: field || 'replay', path, rule: 'not-a-replay' }
  )
}

function replayFileIn(source: string): string {
  const found = lstatSync(source, { throwIfNoEntry: false })
  if (!found?.isDirectory()) return source
  for (let depth = 0, folders = [source]; depth <= 2; depth++) {
    const next: string[] = []
    for (const folder of folders) {
      const entries = readdirSync(folder, { withFileTypes: true })
      if (entries.some((entry) => entry.name === 'replay.json')) return join(folder, 'replay.json')
      next.push(...entries.filter((e) => e.isDirectory()).map((e) => join(folder, e.name)))
    }
    folders = next.sort()
  }
  throw new InvalidInputError(`${source} holds no replay.json [rule unreadable-input].`, {
    field: 'replay',
    path: source,
    rule: 'unreadable-input'
  })
}

function readCapped(path: string): string {
  let fd: number
  try {
    // O_NOFOLLOW: a link at the name is refused; O_NONBLOCK: a fifo never holds the command up.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    throw new InvalidInputError(
      `Cannot read the replay file ${path} (${(error as NodeJS.ErrnoException).code}): give a regular file [rule unreadable-input].`,
      { field: 'replay', path, rule: 'unreadable-input' }
    )
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile())
      throw new InvalidInputError(
        `The replay file ${path} is not a regular file [rule unreadable-input].`,
        { field: 'replay', path, rule: 'unreadable-input' }
      )
    if (stat.size > MAX_REPLAY_BYTES)
      throw new InvalidInputError(
        `The replay file ${path} is ${stat.size} bytes, over the ${MAX_REPLAY_BYTES}-byte limit [rule input-too-large].`,
        { field: 'replay', path, rule: 'input-too-large' }
      )
    const buffer = Buffer.alloc(stat.size)
    let read = 0
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, null)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

function parseJson(text: string, path: string): object {
  let forbidden: string | undefined
  let value: unknown
  try {
    value = JSON.parse(text, (key, item: unknown) => {
      if (FORBIDDEN_KEYS.has(key)) forbidden ??= key
      return item
    })
  } catch {
    // The parser's message quotes the text: none of a file's content is echoed.
    throw new InvalidInputError(`The replay file ${path} is not valid JSON [rule parse-error].`, {
      field: 'replay',
      path,
      rule: 'parse-error'
    })
  }
  if (forbidden)
    throw new InvalidInputError(
      `The replay file ${path} has a "${forbidden}" key [rule forbidden-key].`,
      { field: 'replay', path, rule: 'forbidden-key' }
    )
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new InvalidInputError(
      `${path} is not a Patchsmith replay file: not a JSON object [rule not-a-replay].`,
      { field: 'replay', path, rule: 'not-a-replay' }
    )
  return value
}

/** A recording that brings the sandbox, the paths, the endpoint or a secret is refused whole. */
function refuseUnreplayed(keys: readonly string[], path: string): void {
  const replayed = new Set<string>(REPLAYED_SETTINGS)
  const known = new Set<string>(SETTING_KEYS)
  const refused = keys.filter((key) => known.has(key) && !replayed.has(key))
  if (refused.length === 0) return
  const names = refused.map((key) => settingName(key as (typeof SETTING_KEYS)[number]))
  throw new SecurityViolationError(
    `The replay file ${path} sets ${names.join(', ')}: a replay never takes ${refused.length > 1 ? 'these' : 'this'} from a recording, only from your own settings [rule replay-setting].`,
    { field: 'replay', path, settings: names, rule: 'replay-setting' }
  )
}
