export { cli } from './run.js'
