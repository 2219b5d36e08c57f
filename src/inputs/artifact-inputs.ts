import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, isAbsolute, join, resolve } from 'node:path'
import type { RunConfig } from '../config.js'
import { InvalidInputError, PermissionDeniedError } from '../contract/index.js'

/** The inputs a run's artifact may hold, by the name of the setting they fill. */
interface FoundInputs {
  issue?: string
  fixPlan?: string
  triageResult?: string
  agentInput?: string
  taskFile?: string
}

type InputKey = keyof FoundInputs

interface InputFile {
  name: string
  extensions: string[]
}

/** Each input's file name in an artifact (the action input's name), with the extensions read. */
const INPUT_FILES: Record<InputKey, InputFile> = {
  issue: { name: 'issue', extensions: ['.json', '.yml', '.yaml'] },
  fixPlan: { name: 'fix-plan', extensions: ['.json', '.yml', '.yaml'] },
  triageResult: { name: 'triage-result', extensions: ['.json', '.yml', '.yaml'] },
  agentInput: { name: 'agent-input', extensions: ['.json', '.yml', '.yaml'] },
  taskFile: { name: 'tasks', extensions: ['.md'] }
}
const MAX_DEPTH = 2

/**
 * The input files in a downloaded artifact folder: `issue.json`, `fix-plan.json`,
 * `triage-result.json`, `agent-input.json` (also .yml/.yaml) and `tasks.md`, at the top or up
 * to two folders down (the shallowest wins). Symbolic links are not followed.
 */
export function locateInputs(dir: string): FoundInputs {
  const found: FoundInputs = {}
  const walk = (folder: string, depth: number) => {
    const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name)
    )
    for (const entry of entries.filter((e) => e.isFile())) {
      for (const [key, file] of Object.entries(INPUT_FILES) as Array<[InputKey, InputFile]>) {
        const ext = extname(entry.name).toLowerCase()
        const stem = entry.name.slice(0, entry.name.length - ext.length).toLowerCase()
        if (!found[key] && stem === file.name && file.extensions.includes(ext)) {
          found[key] = join(folder, entry.name)
        }
      }
    }
    if (depth >= MAX_DEPTH) return
    for (const entry of entries.filter((e) => e.isDirectory())) {
      walk(join(folder, entry.name), depth + 1)
    }
  }
  walk(dir, 0)
  return found
}

interface ArtifactSource {
  runId: number
  name: string
  /** A token with actions: read on the repository. */
  token?: string
  /** `owner/repo` (GITHUB_REPOSITORY). */
  repository?: string
  /** Where to unpack it; a fresh folder under RUNNER_TEMP by default. */
  path?: string
}

/**
 * Downloads the named artifact of another workflow run (public API, `findBy`), returning the
 * folder. Without a token or repository nothing is asked and the reason is the error.
 */
async function downloadRunArtifact(source: ArtifactSource): Promise<string> {
  const [owner, repo] = (source.repository ?? '').split('/')
  if (!source.token) {
    throw new PermissionDeniedError(
      `artifact-run-id ${source.runId}: no GitHub token to download the artifact with; give "github-token" a token with actions: read.`,
      { field: 'artifact-run-id', rule: 'no-token' }
    )
  }
  if (!owner || !repo) {
    throw new InvalidInputError(
      `artifact-run-id ${source.runId}: GITHUB_REPOSITORY (owner/repo) is not set, so the run cannot be found.`,
      { field: 'artifact-run-id', rule: 'no-repository' }
    )
  }
  const findBy = {
    token: source.token,
    workflowRunId: source.runId,
    repositoryOwner: owner,
    repositoryName: repo
  }
  const path =
    source.path ?? join(process.env.RUNNER_TEMP || tmpdir(), `patchsmith-input-${source.runId}`)
  // Loaded only for a rerun: the artifact client and its Azure storage stack are large.
  const { DefaultArtifactClient } = await import('@actions/artifact')
  const client = new DefaultArtifactClient()
  let id: number
  try {
    ;({
      artifact: { id }
    } = await client.getArtifact(source.name, { findBy }))
  } catch (error) {
    throw new InvalidInputError(
      `artifact-run-id ${source.runId}: no artifact "${source.name}" in that run (${(error as Error).message}).`,
      { field: 'artifact-run-id', rule: 'artifact-not-found' }
    )
  }
  const { downloadPath } = await client.downloadArtifact(id, { path, findBy })
  if (!downloadPath) {
    throw new InvalidInputError(`artifact-run-id ${source.runId}: the download gave no folder.`, {
      field: 'artifact-run-id'
    })
  }
  return downloadPath
}

/**
 * The settings a downloaded artifact fills: each input the user did not give. A whole
 * agent-input is used only when none of issue, fix-plan, agent-input and task-file was given.
 */
export function inputsFromFolder(dir: string, given: FoundInputs, what: string): FoundInputs {
  const found = locateInputs(dir)
  const fill: FoundInputs = {}
  const ownPlan = given.fixPlan || given.agentInput || given.taskFile
  if (found.agentInput && !ownPlan && !given.issue) fill.agentInput = found.agentInput
  else {
    if (!given.issue && found.issue) fill.issue = found.issue
    if (!ownPlan && found.taskFile && !found.fixPlan) fill.taskFile = found.taskFile
    else if (!ownPlan && found.fixPlan) fill.fixPlan = found.fixPlan
    if (!given.triageResult && found.triageResult) fill.triageResult = found.triageResult
  }
  if (Object.keys(fill).length === 0) {
    const names = Object.values(INPUT_FILES).map((file) => `${file.name}${file.extensions[0]}`)
    throw new InvalidInputError(
      `${what} holds no input that is still missing (looked for ${names.join(', ')}).`,
      { field: 'artifact-run-id', rule: 'no-inputs', found: Object.keys(found) }
    )
  }
  return fill
}

/** One input as a file for the artifact a rerun downloads: `name` + the source's extension. */
function inputEntry(
  key: InputKey,
  value: string | undefined,
  baseDir: string
): { name: string; path: string } | { name: string; content: string } | undefined {
  if (!value) return undefined
  const { name, extensions } = INPUT_FILES[key]
  const path = isAbsolute(value) ? value : resolve(baseDir, value)
  const inline = /^\s*[{[]/.test(value) || value.includes('\n')
  if (!inline && existsSync(path) && statSync(path).isFile()) {
    const ext = extname(path).toLowerCase()
    return { name: `${name}${extensions.includes(ext) ? ext : extensions[0]}`, path }
  }
  if (key === 'taskFile') return undefined
  return { name: `${name}${/^\s*[{[]/.test(value) ? '.json' : '.yml'}`, content: value }
}

/** The event's issue as issue.json, when the run took its issue from the event. */
function eventIssueEntry(
  eventPath: string | undefined
): { name: string; content: string } | undefined {
  if (!eventPath || !existsSync(eventPath)) return undefined
  try {
    const { issue } = JSON.parse(readFileSync(eventPath, 'utf8')) as {
      issue?: { number?: unknown; title?: unknown; body?: unknown; labels?: unknown }
    }
    if (!issue) return undefined
    const { number, title, body, labels } = issue
    return { name: 'issue.json', content: JSON.stringify({ number, title, body, labels }, null, 2) }
  } catch {
    return undefined
  }
}

type InputEntry = { name: string; path: string } | { name: string; content: string }

/**
 * A rerun's settings: with artifact-run-id, the inputs found in that run's artifact fill the
 * ones not given. Without it the settings are returned as they are.
 */
export async function withArtifactInputs(
  config: RunConfig,
  repository: string | undefined,
  download: (source: ArtifactSource) => Promise<string> = downloadRunArtifact
): Promise<RunConfig> {
  if (!config.artifactRunId) return config
  const runId = Number(config.artifactRunId)
  const name = config.inputArtifactName
  const dir = await download({ runId, name, token: config.githubToken, repository })
  const what = `The artifact "${name}" of run ${runId}`
  // resume: true repairs from that run's last attempt, kept in its result.json.
  if (config.resume && /^(true|yes|on|1)$/i.test(config.resume.trim())) {
    const result = locateFile(dir, 'result.json')
    if (!result) {
      throw new InvalidInputError(`${what} holds no result.json to resume from.`, {
        field: 'resume',
        rule: 'no-result'
      })
    }
    return { ...config, ...inputsOrNone(dir, config, what), resume: result }
  }
  return { ...config, ...inputsFromFolder(dir, config, what) }
}

/** The inputs the folder fills; none when every input was given already. */
function inputsOrNone(dir: string, given: FoundInputs, what: string): FoundInputs {
  try {
    return inputsFromFolder(dir, given, what)
  } catch (error) {
    if (error instanceof InvalidInputError && error.details.rule === 'no-inputs') return {}
    throw error
  }
}

/** A file by name at the top of a folder or up to two folders down (the shallowest wins). */
function locateFile(dir: string, fileName: string): string | undefined {
  for (let depth = 0, folders = [dir]; depth <= MAX_DEPTH; depth++) {
    const next: string[] = []
    for (const folder of folders) {
      const entries = readdirSync(folder, { withFileTypes: true })
      if (entries.some((e) => e.isFile() && e.name === fileName)) return join(folder, fileName)
      next.push(...entries.filter((e) => e.isDirectory()).map((e) => join(folder, e.name)))
    }
    folders = next.sort()
  }
  return undefined
}

/** The run's inputs as artifact files, so that a rerun (artifact-run-id) finds them. */
export function inputEntries(config: RunConfig, eventPath: string | undefined): InputEntry[] {
  const baseDir = process.cwd()
  const entries = (Object.keys(INPUT_FILES) as InputKey[]).map((key) =>
    inputEntry(key, config[key], baseDir)
  )
  if (!config.issue && !config.agentInput) entries.push(eventIssueEntry(eventPath))
  return entries.filter((entry): entry is InputEntry => entry !== undefined)
}
