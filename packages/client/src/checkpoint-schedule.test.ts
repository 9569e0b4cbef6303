import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { CheckpointSchedule } from './checkpoint-schedule.ts'

describe('CheckpointSchedule', () => {
  test('checkpoints once, delayMs after the last change', () => {
    const timers = manualTimers()
    let runs = 0
    const schedule = new CheckpointSchedule(timers, 100, () => (runs += 1))
    schedule.touch()
    timers.advance(60)
    schedule.touch()
    timers.advance(99)
    expect(runs).toBe(0)
    timers.advance(1)
    expect(runs).toBe(1)
  })

  test('constant changes still checkpoint within 10 × delayMs', () => {
    const timers = manualTimers()
    const at: number[] = []
    const schedule = new CheckpointSchedule(timers, 100, () => at.push(timers.now()))
    for (let t = 0; t < 2500; t += 50) {
      schedule.touch()
      timers.advance(50)
    }
    expect(at[0]).toBe(1000)
    expect(at).toHaveLength(2)
  })

  test('a wall clock set back after a change does not postpone the checkpoint by as much', () => {
    const timers = manualTimers()
    let runs = 0
    const schedule = new CheckpointSchedule(timers, 100, () => (runs += 1))
    timers.advance(3_600_000)
    schedule.touch()
    timers.jump(-3_600_000) // NTP steps the clock back an hour
    timers.advance(100)
    expect(runs).toBe(1)
  })

  test('cancel drops the pending checkpoint', () => {
    const timers = manualTimers()
    let runs = 0
    const schedule = new CheckpointSchedule(timers, 100, () => (runs += 1))
    schedule.touch()
    schedule.cancel()
    timers.advance(1000)
    expect(runs).toBe(0)
  })

  test('a touch per keystroke does not set a timer per keystroke', () => {
    const timers = manualTimers()
    let armed = 0
    const counting = {
      ...timers,
      setTimeout: (fn: () => void, ms: number) => ((armed += 1), timers.setTimeout(fn, ms)),
    }
    const at: number[] = []
    const schedule = new CheckpointSchedule(counting, 100, () => at.push(timers.now()))
    for (let t = 0; t < 300; t += 1) {
      for (let k = 0; k < 100; k++) schedule.touch() // 30,000 touches over 300 ms
      timers.advance(1)
    }
    expect(at).toEqual([])
    timers.advance(100)
    expect(at).toEqual([399]) // delayMs after the last touch (at 299)
    // One timer per delayMs of typing at most, not one per touch.
    expect(armed).toBeLessThanOrEqual(5)
  })
})
