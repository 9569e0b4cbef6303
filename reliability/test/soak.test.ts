/**
 * Short soak (part of `npm test`): one seed of a trace prefix and one of random edits, with every
 * fault on (streams cut every 1–2 s), in-process sidecars. `npm run soak` is the long mode (20 seeds, full traces, SIGKILL).
 */
import { describe, expect, it } from 'vitest'
import { runSoak, type SoakOptions } from '../src/soak.ts'
import { runLine } from '../src/soak-report.ts'

/** What both short runs share: sidecars in this process, streams cut every 1–2 s, 30 s to converge. */
const SHORT: Pick<SoakOptions, 'mode' | 'rates' | 'convergeTimeoutMs'> = {
  mode: 'in-process',
  rates: { cutEveryMs: [1000, 2000] },
  convergeTimeoutMs: 30_000,
}

describe('the fault-injection soak, short mode', () => {
  it('converges on the friendsforever trace prefix under every fault, nothing lost or delivered twice', async () => {
    // Signal's pace only counted here: enforced, the prefix typed at 200 sends/s takes ~5x longer;
    // the random-edits run below enforces it.
    const r = await runSoak({
      ...SHORT,
      seed: 7,
      workload: 'concurrent_friendsforever',
      txnLimit: 1500,
      stallMs: 30_000,
      signalPace: 'count',
    })
    console.log(runLine(r))
    expect(r.failures).toEqual([])
    expect(r.faults['sidecar-restart']).toBe(1)
    expect(r.faults['page-reload']).toBe(1)
    expect((r.faults['fail-before-processing'] ?? 0) + (r.faults['processed-unanswered'] ?? 0)).toBeGreaterThan(0)
    expect(r.faults['stream-cut'] ?? 0).toBeGreaterThan(0)
  }, 90_000)

  it("converges on seeded random edits with Signal's pace enforced: every live token once, every deleted one gone", async () => {
    const r = await runSoak({
      ...SHORT,
      seed: 11,
      workload: 'random',
      randomEdits: 250,
      signalPace: 'enforce',
    })
    console.log(runLine(r))
    expect(r.failures).toEqual([])
    expect(r.textLength).toBeGreaterThan(0)
    // The soak's sidecars send faster than Signal allows: the toy refused some, and they got through anyway.
    expect(r.signalRefused).toBeGreaterThan(0)
    // Some pastes were large (deflated, chunked) and Signal delivered one of those twice.
    expect(r.faults['redeliver-chunked'] ?? 0).toBeGreaterThan(0)
  }, 90_000)
})
