/*
 * What lets a killed run be undone or resumed: the work tree's lock, the journal and its key,
 * the recovery that carries a dead run's journal out (or sets an unverified one aside), and the
 * last attempt kept beside it. Below a change's life (src/change), above the door (src/git).
 */
export { RunLock } from './run-lock.js'
export { RunJournal, type JournalRecord } from './run-journal.js'
export { AttemptFile } from './attempt-file.js'
export { recoverRepository } from './journal-recovery.js'
export {
  leftoverSigns,
  unverifiedJournalMessage,
  type UnverifiedJournal
} from './unverified-journal.js'
export { journalKeyFolder, loadJournalKey } from './journal-key.js'
export { privateFolder } from './private-file.js'
