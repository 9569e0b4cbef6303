import { describe, expect, test } from 'vitest'
import { SeqReservation } from './seq-reservation.ts'

describe('SeqReservation', () => {
  test('hands out increasing numbers and persists a new mark before a block runs out', () => {
    const marks: number[] = []
    const seq = new SeqReservation(10, 4, (m) => marks.push(m))
    expect(seq.mark).toBe(14)
    expect([seq.take(), seq.take(), seq.take()]).toEqual([10, 11, 12])
    expect(marks).toEqual([])
    expect(seq.take()).toBe(13)
    expect(marks).toEqual([18])
    expect(seq.mark).toBe(18)
  })

  test('a restart from the stored mark never repeats a number handed out before', () => {
    const marks: number[] = []
    const before = new SeqReservation(0, 8, (m) => marks.push(m))
    const used = Array.from({ length: 11 }, () => before.take())
    const restarted = new SeqReservation(Math.max(8, ...marks), 8, () => {})
    expect(used).not.toContain(restarted.take())
  })
})
