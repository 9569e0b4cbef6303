import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { CheckpointSchedule } from './checkpoint-schedule.ts'

describe('CheckpointSchedule: a change in the very millisecond its timer fires', () => {
  test('still waits delayMs after that change (the debounce holds at the boundary)', () => {
    const timers = manualTimers()
    const at: number[] = []
    const schedule = new CheckpointSchedule(timers, 100, () => at.push(timers.now()))
    // Armed before the checkpoint timer, so it runs first when both are due (a remote update
    // delivered by another timer, say).
    timers.setTimeout(() => schedule.touch(), 100)
    schedule.touch() // due at 100
    timers.advance(100) // the change at 100 lands just before the timer fires at 100
    expect(at).toEqual([])
    timers.advance(100)
    expect(at).toEqual([200])
  })
})
