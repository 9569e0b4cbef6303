import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { SendHold } from './send-hold.ts'

/** A hold of 100–400 ms that records when it resumes. */
function hold(): { timers: ReturnType<typeof manualTimers>; h: SendHold; resumes: number[] } {
  const timers = manualTimers()
  const resumes: number[] = []
  const h = new SendHold({ timers, minMs: 100, maxMs: 400, resume: () => resumes.push(timers.now()) })
  return { timers, h, resumes }
}

describe('SendHold: when a refusal counts as soon after a hold', () => {
  test('a refusal exactly twice the last hold after it ended starts again at minMs', () => {
    const { timers, h, resumes } = hold()
    h.refused() // 100 ms, resumes at 100
    timers.advance(100)
    timers.advance(200) // 2 × 100 ms after the resume: no longer "soon"
    h.refused()
    timers.advance(100)
    expect(resumes).toEqual([100, 400])
  })

  test('a refusal some time (under twice the last hold) after it ended doubles the next hold', () => {
    const { timers, h, resumes } = hold()
    h.refused() // 100 ms, resumes at 100
    timers.advance(100)
    timers.advance(50) // 50 ms after the resume, within 2 × 100 ms
    h.refused() // 200 ms
    timers.advance(199)
    expect(resumes).toEqual([100])
    timers.advance(1)
    expect(resumes).toEqual([100, 350])
  })
})
