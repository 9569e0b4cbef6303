import { describe, expect, test } from 'vitest'
import { loadTrace, traceExists, type TimedTrace } from './traces.ts'
import { PERSON_AGENT, personSchedule, sessionTimeline, TIMING_TRACE } from './typing-speed.ts'

const recorded = traceExists(TIMING_TRACE)
if (!recorded) console.warn(`the recorded-session check is skipped: missing editing trace ${TIMING_TRACE}`)

const at = (seconds: number, agent: number) => ({ time: new Date(seconds * 1000).toISOString(), agent })

describe("one person's typing schedule across the session", () => {
  test("keeps only the person's keystrokes, spread within their second, long pauses cut to 2 s", () => {
    const timing: TimedTrace = { txns: [at(0, 0), at(0, 1), at(0, 0), at(1, 0), at(60, 0), at(61, 1)] }
    expect(sessionTimeline(timing, 0)).toEqual([0, 500, 1000, 3000])
    expect(sessionTimeline(timing, 1)).toEqual([0, 2000])
    expect(sessionTimeline(timing)).toHaveLength(6)
  })

  test('takes evenly spaced windows of the timeline and joins them with the longest gap', () => {
    // One keystroke a second for 100 s: windows of 3 s at 25 %, 50 % and 75 % of the timeline.
    const timing: TimedTrace = { txns: Array.from({ length: 100 }, (_, s) => at(s, 0)) }
    const offsets = personSchedule(timing, 0, 3000, 3)
    expect(offsets).toEqual([0, 1000, 2000, 4000, 5000, 6000, 8000, 9000, 10000])
  })

  test.skipIf(!recorded)(
    "on the recorded session, has pauses that the two-author window's fastest stretch lacks",
    () => {
      const timing = loadTrace<TimedTrace>(TIMING_TRACE)
      const offsets = personSchedule(timing, PERSON_AGENT, 20_000, 6)
      const gaps = offsets.slice(1).map((o, i) => o - (offsets[i] ?? 0))
      expect(offsets.length).toBeGreaterThan(100)
      expect(gaps.every((g) => g >= 0 && g <= 2000)).toBe(true)
      // Six windows of at most 20 s each, five 2 s joins between them.
      expect(offsets.at(-1) ?? 0).toBeLessThan(6 * 20_000 + 5 * 2000)
    },
  )
})
