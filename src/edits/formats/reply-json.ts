const FENCE = /^(```|~~~)/
const TAG_LINE = /^<\/?[A-Za-z_][\w:-]*(\s[^>]*)?>\s*$/

/**
 * The JSON a reply carries, when it is one: the whole reply, or the reply inside one markdown
 * fence or `<tool_call>`-style tags. Undefined when the reply is not JSON (or not valid JSON).
 */
export function jsonOf(reply: string): unknown {
  const lines = reply.replace(/\r\n/g, '\n').trim().split('\n')
  // Wrapping lines around the JSON: fences, tags and prose before the first brace.
  let start = lines.findIndex((line) => /^\s*[{[]/.test(line))
  if (start < 0) return undefined
  let end = lines.length - 1
  while (end > start && !/[}\]]\s*$/.test(lines[end]!)) end--
  const outside = [...lines.slice(0, start), ...lines.slice(end + 1)]
  if (
    outside.some((line) => line.trim() !== '' && !FENCE.test(line) && !TAG_LINE.test(line.trim()))
  )
    start = -1
  const text = start < 0 ? reply.trim() : lines.slice(start, end + 1).join('\n')
  const inline = /^<[A-Za-z_][\w:-]*>\s*([\s\S]*?)\s*<\/[A-Za-z_][\w:-]*>$/.exec(text)
  try {
    return JSON.parse(inline ? inline[1]! : text)
  } catch {
    return undefined
  }
}

/**
 * The first object inside a tool-call wrapper that `accept` takes: the value itself, or what an
 * `{name, arguments}` call, an OpenAI `{function: {arguments}}` or `tool_calls` list, or an
 * `input`/`parameters` wrapper holds (arguments given as a JSON string are parsed).
 */
export function unwrapToolCall<T>(
  value: unknown,
  accept: (candidate: Record<string, unknown>) => T | undefined,
  depth = 0
): T | undefined {
  if (depth > 5 || value === null || typeof value !== 'object') return undefined
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = unwrapToolCall(item, accept, depth + 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  const object = value as Record<string, unknown>
  const accepted = accept(object)
  if (accepted !== undefined) return accepted
  for (const key of ['arguments', 'function', 'tool_calls', 'input', 'parameters', 'args']) {
    let inner = object[key]
    if (typeof inner === 'string') {
      try {
        inner = JSON.parse(inner)
      } catch {
        continue
      }
    }
    const found = unwrapToolCall(inner, accept, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}
