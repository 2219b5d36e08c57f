/**
 * The workflow commands the GitHub Actions runner would carry out from a step's log, read as
 * the runner reads them (actions/runner, ActionCommandManager and ActionCommand): lines split at
 * CR and LF; each trimmed with .NET's whitespace set, then `::name props::data`, else the older
 * `##[name props]data` anywhere in the line; nothing but the token's own command between
 * `::stop-commands::TOKEN` and `::TOKEN::`. Any command name counts here (the runner only knows
 * its registered ones), so the check is stricter than the runner.
 */
export interface RunnerCommand {
  name: string
  rest: string
  line: string
}

// Char.IsWhiteSpace: what String.Trim/TrimStart take away.
const DOTNET_WHITESPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/

export function runnerCommands(log: string): RunnerCommand[] {
  const carried: RunnerCommand[] = []
  let stopToken: string | undefined
  for (const line of log.split(/\r\n|\r|\n/)) {
    const command = newForm(line) ?? olderForm(line)
    if (!command) continue
    if (stopToken !== undefined) {
      if (command.name === stopToken) stopToken = undefined
      continue
    }
    if (command.name === 'stop-commands') stopToken = command.rest
    else carried.push(command)
  }
  return carried
}

function newForm(line: string): RunnerCommand | undefined {
  const trimmed = line.replace(DOTNET_WHITESPACE, '')
  if (!trimmed.startsWith('::')) return undefined
  const end = trimmed.indexOf('::', 2)
  if (end < 0) return undefined
  const info = trimmed.slice(2, end)
  const name = info.split(' ')[0]!
  return name
    ? { name, rest: `${info.slice(name.length)}${trimmed.slice(end + 2)}`, line }
    : undefined
}

function olderForm(line: string): RunnerCommand | undefined {
  const start = line.indexOf('##[')
  if (start < 0) return undefined
  const close = line.indexOf(']', start)
  if (close < 0) return undefined
  const info = line.slice(start + 3, close)
  const name = info.split(' ')[0]!
  return name
    ? { name, rest: `${info.slice(name.length)}${line.slice(close + 1)}`, line }
    : undefined
}
