import type { RecordedRequest, ScriptedReply } from './model-server.js'
import { until } from './until.js'

/**
 * A model script whose replies wait until `count` requests have been waiting at once: drafts
 * sent side by side are seen to overlap however slowly a loaded machine sends them, where a
 * fixed reply delay could be outrun. Once that has happened every reply goes at once. A client
 * that never gets `count` requests out together is answered at until()'s deadline, and the
 * test's concurrency assertions fail.
 */
export function answeredTogether(
  count: number,
  script: (request: RecordedRequest) => ScriptedReply | string
): (request: RecordedRequest) => Promise<ScriptedReply | string> {
  let waiting = 0
  let reached = false
  return async (request) => {
    waiting++
    if (waiting >= count) reached = true
    await until(() => reached, `${count} requests at once`).catch(() => undefined)
    waiting--
    return script(request)
  }
}
