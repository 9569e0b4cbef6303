import { loadTrace } from '/work/main/bench/traces.ts'
import { replayOf, replayLocal, replayE2e, replayYws } from '/work/main/bench/trace-replay.ts'
import { startYws } from '/work/main/bench/y-websocket-baseline.ts'
const trace = loadTrace('seq-ascii_automerge-paper')
const r = replayOf(trace, Number(process.argv[2] ?? 20000))
console.log('local', await replayLocal(r))
const cap = { frames: [] as Uint8Array[], payloadBytes: 0 }
console.log('e2e', await replayE2e(r, { capture: cap }), cap.frames.length, cap.payloadBytes)
const s = await startYws()
console.log('yws', await replayYws(s, r))
await s.close()
