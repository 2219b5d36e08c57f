import { z } from 'zod'
import {
  CodeAgentInputSchema,
  CodeAgentOutputSchema,
  CodingTaskSchema,
  CommitResultSchema,
  CommitSchema,
  FixPlanSchema,
  IssueSchema,
  TriageResultSchema
} from './schemas.js'

/** The contract as JSON Schema: what the steps before this one write and the step after reads. */
export function contractJsonSchemas(): Record<string, object> {
  const input = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })
  const output = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })
  return {
    'code-agent-input': input(CodeAgentInputSchema),
    issue: input(IssueSchema),
    'triage-result': input(TriageResultSchema),
    'fix-plan': input(FixPlanSchema),
    commit: output(CommitSchema),
    'code-agent-output': output(CodeAgentOutputSchema),
    'coding-task': input(CodingTaskSchema),
    'commit-result': output(CommitResultSchema)
  }
}
