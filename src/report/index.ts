export { writeResultFile, actionOutputs } from './result.js'
export { summaryMarkdown } from './summary.js'
export { failureComment, postFailureFeedback } from './issue-feedback.js'
export type { IssueFeedbackOptions } from './issue-feedback.js'
