export { githubClient } from './client.js'
export type { GitHubClient, GitHubClientOptions } from './client.js'
export { postFailureFeedback } from './issue-feedback.js'
export type { IssueFeedbackOptions } from './issue-feedback.js'
