export { runAgent } from './run-agent.js'
export type { AgentEnvironment, AgentRun } from './run-agent.js'
export type { Logger } from './logger.js'
export { silentLogger } from './logger.js'
