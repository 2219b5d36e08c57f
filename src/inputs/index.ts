export { issueFromEvent, loadAgentInput, namedIssueNumber, validate } from './load.js'
export { readStructured, MAX_INPUT_BYTES } from './structured-text.js'
