/*
 * Replay: what a run records so that it can be run again offline (RunRecorder, replay.json),
 * and the parts `patchsmith replay` runs it with (src/cli/replay.ts).
 */
export { RunRecorder, type CommandStart } from './recorder.js'
export {
  readReplayFile,
  replayPath,
  replayRecord,
  writeReplayFile,
  replyDigest,
  type RecordedRun
} from './replay-file.js'
export {
  COMMAND_SETTINGS,
  REPLAYED_SETTINGS,
  type Replay,
  type ReplayCommand,
  type ReplayExchange
} from './replay-format.js'
export { ReplayJudge, type Divergence, type ReplayedOutcome } from './judge.js'
export { startReplyServer, type ReplyServer } from './reply-server.js'
export { replayWorkspace, treeIn, type ReplayWorkspace } from './workspace.js'
