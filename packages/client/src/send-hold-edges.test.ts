import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { SendHold } from './send-hold.ts'

/**
 * When a 100–400 ms hold resumes, for refusals at the given times: each `advance` moves the clock to
 * the next refusal time, running the resumes due on the way.
 */
function resumesFor(refusalsAt: number[], until: number): number[] {
  const timers = manualTimers()
  const resumes: number[] = []
  const sendHold = new SendHold({ timers, minMs: 100, maxMs: 400, resume: () => resumes.push(timers.now()) })
  for (const at of refusalsAt) {
    timers.advance(at - timers.now())
    sendHold.refused()
  }
  timers.advance(until - timers.now())
  return resumes
}

describe('SendHold: when a refusal counts as soon after a hold', () => {
  test('a refusal exactly twice the last hold after it ended starts again at minMs', () => {
    // The first hold ends at 100; 300 is 2 × 100 ms later: no longer "soon".
    expect(resumesFor([0, 300], 1000)).toEqual([100, 400])
  })

  test('a refusal some time (under twice the last hold) after it ended doubles the next hold', () => {
    // The first hold ends at 100; 150 is within 2 × 100 ms of it: the next hold is 200 ms.
    expect(resumesFor([0, 150], 349)).toEqual([100])
    expect(resumesFor([0, 150], 1000)).toEqual([100, 350])
  })
})
