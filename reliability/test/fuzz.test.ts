/**
 * Short fuzz (part of `npm test`): every target at about 1% of `npm run fuzz`, with a fixed seed.
 * The runner's own failure paths are checked too, so a finding cannot pass silently.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fuzzTarget, TARGETS } from '../src/fuzz/runner.ts'
import type { FuzzTarget } from '../src/fuzz/target.ts'

const SHORT_RUNS: Record<string, number> = { 'events-stream ingest (every split)': 60, reassembly: 400 }

describe('fuzz, short mode', () => {
  for (const target of TARGETS) {
    it(`${target.name}: only typed errors, bounded memory`, async () => {
      const r = await fuzzTarget(target, SHORT_RUNS[target.name] ?? 2000, 20_261_130)
      expect(r.cases).toBeGreaterThanOrEqual(r.runs)
    })
  }

  it('reports an untyped exception as a finding', async () => {
    const broken: FuzzTarget<number> = {
      name: 'broken',
      arbitrary: fc.nat(),
      check: (n) => {
        if (n > 5) throw new TypeError('boom')
      },
    }
    await expect(fuzzTarget(broken as unknown as FuzzTarget<never>, 200, 1)).rejects.toThrow(/Property failed/)
  })

  it('reports an unhandled rejection as a finding', async () => {
    const leaky: FuzzTarget<number> = {
      name: 'leaky',
      arbitrary: fc.nat(),
      check: () => {
        void Promise.reject(new Error('lost'))
      },
    }
    await expect(fuzzTarget(leaky as unknown as FuzzTarget<never>, 5, 1)).rejects.toThrow(/unhandled rejections/)
  })
})
