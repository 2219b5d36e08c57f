import OpenAI from 'openai'
import type { z } from 'zod'
import type { ChatMessage } from './chat.js'

/** A JSON reply shape, e.g. the json-edits schema from src/edits. */
export interface StructuredFormat {
  /** ^[A-Za-z0-9_-]{1,64}$ — the schema's (or tool's) name. */
  name: string
  /** An object schema; strict structured output wants every property required (nullable). */
  schema: z.ZodType
  description?: string
}

/**
 * How a StructuredFormat is asked for: `json-schema` (response_format), `tool` (one forced
 * function call), `prompt` (the schema in the prompt, for servers with neither). `auto` is
 * json-schema, falling back to prompt when the endpoint refuses it.
 */
export const STRUCTURED_MODES = ['auto', 'json-schema', 'tool', 'prompt'] as const
export type StructuredMode = (typeof STRUCTURED_MODES)[number]

/** The request fields for a call: the messages and, with a format, how the JSON is asked for. */
export async function requestFormat(
  messages: ChatMessage[],
  format: StructuredFormat | undefined,
  mode: StructuredMode
) {
  if (!format) return { messages }
  // Loaded only for a structured reply: the helper brings zod 3 and a JSON Schema converter.
  const { zodResponseFormat } = await import('openai/helpers/zod')
  const responseFormat = zodResponseFormat(format.schema, format.name)
  if (mode === 'auto' || mode === 'json-schema') {
    return { messages, response_format: responseFormat }
  }
  const schema = responseFormat.json_schema.schema ?? {}
  if (mode === 'tool') {
    return {
      messages,
      tools: [
        {
          type: 'function' as const,
          function: {
            name: format.name,
            ...(format.description ? { description: format.description } : {}),
            parameters: schema,
            strict: true
          }
        }
      ],
      tool_choice: { type: 'function' as const, function: { name: format.name } }
    }
  }
  return {
    messages: [
      ...messages,
      {
        role: 'user' as const,
        content:
          'Reply with one JSON object and nothing else (no prose, no markdown fences). It must ' +
          `match this JSON Schema:\n${JSON.stringify(schema)}`
      }
    ]
  }
}

/**
 * The optional feature an endpoint refused, when its 4xx names one: structured output
 * (response_format / json_schema / tools) or stream usage (stream_options).
 */
export function unsupportedFeature(
  error: unknown,
  used: { structured: boolean; streamUsage: boolean }
): 'structured' | 'stream_usage' | undefined {
  if (!(error instanceof OpenAI.APIError) || typeof error.status !== 'number') return undefined
  if (![400, 404, 415, 422, 501].includes(error.status)) return undefined
  const text = error.message
  if (used.streamUsage && /stream_options|include_usage/i.test(text)) return 'stream_usage'
  if (
    used.structured &&
    /response_format|json_schema|structured|tool_choice|\btools?\b|function/i.test(text)
  ) {
    return 'structured'
  }
  return undefined
}
