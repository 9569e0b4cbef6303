/**
 * The typing-latency rows of the scale bench alone (bench/scale/directions.ts), at the default pacing,
 * for a shorter run than `npm run bench -- --scale`:
 * `tsx --conditions=@e2e-col/source bench/scale/directions-run.ts [--scale-window=45] [--scale-person-windows=6]`.
 */
import { PACING_DEFAULT } from '../stack.ts'
import { ms } from '../stats.ts'
import { loadTrace, type TimedTrace } from '../traces.ts'
import { PERSON_AGENT, personSchedule, TIMING_TRACE, TYPING_TRACE, typingSchedule } from '../typing-speed.ts'
import { baselineTyping, bothDirections } from './directions.ts'
import { buildSidecar } from './procs.ts'
import { scaleSizes } from './scale.ts'

const sizes = scaleSizes(process.argv.slice(2))
const { runtime } = buildSidecar()
const timing = loadTrace<TimedTrace>(TIMING_TRACE)
const replays = {
  trace: loadTrace(TYPING_TRACE),
  offsets: typingSchedule(timing, sizes.windowSeconds * 1000),
  personOffsets: personSchedule(timing, PERSON_AGENT, sizes.personWindowSeconds * 1000, sizes.personWindows),
}
const runs = await bothDirections({ runtime, pacing: PACING_DEFAULT, samples: sizes.samples, ...replays })
console.log(`${runtime}, default pacing, window ${sizes.windowSeconds} s, ${sizes.personWindows} person windows`)
for (const r of runs) {
  const line = (t: typeof r.typing | undefined): string =>
    t === undefined
      ? '–'
      : `p50 ${ms(t.latencyMs.p50)} p95 ${ms(t.latencyMs.p95)} ms, ${t.keystrokes} keys, ${t.sendsPerMinute.toFixed(1)} sends/min`
  console.log(`${r.direction}: fastest stretch ${line(r.typing)}; one person ${line(r.personTyping)}`)
}
for (const system of ['y-websocket', 'Hocuspocus'] as const) {
  const b = await baselineTyping(system, replays)
  console.log(
    `${system} (A → B): fastest stretch p50 ${ms(b.typing.latencyMs.p50)} ms; one person p50 ${ms(b.personTyping?.latencyMs.p50 ?? Number.NaN)} ms`,
  )
}
