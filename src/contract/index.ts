export * from './schemas.js'
export * from './errors.js'
export * from './refusal-rules.js'
