// Kept where the lock reads it; the reader lives with the other process facts in sandbox/.
export { processStartTime } from '../sandbox/index.js'
