import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { SendHold } from './send-hold.ts'

function hold(): { timers: ReturnType<typeof manualTimers>; h: SendHold; resumes: number[] } {
  const timers = manualTimers()
  const resumes: number[] = []
  const h = new SendHold({ timers, minMs: 100, maxMs: 400, resume: () => resumes.push(timers.now()) })
  return { timers, h, resumes }
}

describe('SendHold', () => {
  test('holds for minMs after a refusal, then resumes once', () => {
    const { timers, h, resumes } = hold()
    expect(h.held).toBe(false)
    h.refused()
    expect(h.held).toBe(true)
    timers.advance(99)
    expect(resumes).toEqual([])
    timers.advance(1)
    expect(resumes).toEqual([100])
    expect(h.held).toBe(false)
  })

  test('refusals during a hold (of frames sent before it) neither extend nor repeat it', () => {
    const { timers, h, resumes } = hold()
    h.refused()
    timers.advance(50)
    h.refused()
    h.refused()
    timers.advance(50)
    expect(resumes).toEqual([100])
    timers.advance(1000)
    expect(resumes).toEqual([100])
  })

  test('a refusal soon after a hold doubles the next, up to maxMs; a quiet spell resets it', () => {
    const { timers, h, resumes } = hold()
    h.refused() // 100
    timers.advance(100)
    h.refused() // 200
    timers.advance(200)
    h.refused() // 400
    timers.advance(400)
    h.refused() // still 400 (max)
    timers.advance(400)
    expect(resumes).toEqual([100, 300, 700, 1100])
    timers.advance(5000) // quiet
    h.refused()
    timers.advance(100)
    expect(resumes.at(-1)).toBe(6200)
  })

  test('reset ends a hold without resuming (a new connection replays by itself)', () => {
    const { timers, h, resumes } = hold()
    h.refused()
    h.reset()
    expect(h.held).toBe(false)
    timers.advance(1000)
    expect(resumes).toEqual([])
  })
})
