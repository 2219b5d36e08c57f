/*
 * Replay: what a run records so that it can be run again offline (RunRecorder, replay.json),
 * and the parts `patchsmith replay` runs it with (src/cli/replay.ts).
 */
export { RunRecorder } from './recorder.js'
export {
  readReplayFile,
  replayPath,
  replayRecord,
  writeReplayFile,
  replyDigest
} from './replay-file.js'
export { COMMAND_SETTINGS, REPLAYED_SETTINGS, type Replay } from './replay-format.js'
export { ReplayJudge } from './judge.js'
export { startReplyServer } from './reply-server.js'
export { replayWorkspace, treeIn } from './workspace.js'
