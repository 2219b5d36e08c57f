import { z } from 'zod'
import { codeAgentOutputSchema } from './output.js'
import {
  codeAgentInputSchema,
  commitSchema,
  fixPlanSchema,
  issueSchema,
  triageResultSchema
} from './schemas.js'
import { codingTaskSchema, commitResultSchema } from './coding-task.js'

/** The contract as JSON Schema: what the steps before this one write and the step after reads. */
export function contractJsonSchemas(): Record<string, object> {
  const input = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })
  const output = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })
  return {
    'code-agent-input': input(codeAgentInputSchema()),
    issue: input(issueSchema()),
    'triage-result': input(triageResultSchema()),
    'fix-plan': input(fixPlanSchema()),
    commit: output(commitSchema()),
    'code-agent-output': output(codeAgentOutputSchema()),
    'coding-task': input(codingTaskSchema()),
    'commit-result': output(commitResultSchema())
  }
}
