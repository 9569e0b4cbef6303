import { describe, expect, it } from 'vitest'
import { answerRank, fallbackMs } from './answer-rule.ts'

const members = ['u-alice', 'u-bob', 'u-carol', 'u-dave']

describe('the group answer rule', () => {
  it('gives every member but the asker a distinct rank, the same whoever computes it', () => {
    for (let i = 0; i < 50; i++) {
      const request = `sender-${i}/message-${i}`
      const ranks = members.filter((m) => m !== 'u-carol').map((m) => answerRank(request, m, members, 'u-carol'))
      expect([...ranks].sort()).toEqual([0, 1, 2])
    }
  })

  it('spreads the first rank over the members across requests', () => {
    const first = new Map<string, number>()
    for (let i = 0; i < 300; i++) {
      const winner = members.find((m) => m !== 'u-dave' && answerRank(`r${i}`, m, members, 'u-dave') === 0) ?? ''
      first.set(winner, (first.get(winner) ?? 0) + 1)
    }
    expect([...first.keys()].sort()).toEqual(['u-alice', 'u-bob', 'u-carol'])
    for (const n of first.values()) expect(n).toBeGreaterThan(50)
  })

  it('ranks a member that does not know itself, or is not listed, after everyone', () => {
    expect(answerRank('r', undefined, members, 'u-bob')).toBe(3)
    expect(answerRank('r', 'u-eve', members, 'u-bob')).toBe(3)
  })

  it('scales the fallback bound with the bodies the answer needs', () => {
    const o = { baseMs: 2000, sendIntervalMs: 1000, bodyFrameBytes: 1400 }
    expect(fallbackMs(10, o)).toBe(4000)
    expect(fallbackMs(14_000, o)).toBe(2000 + 2 * 10 * 1000)
  })

  it('counts an answer the group takes as one attachment by its upload, not by the text bodies it would fill', () => {
    const o = { baseMs: 2000, sendIntervalMs: 1000, bodyFrameBytes: 1409 }
    const tenMegabytes = 10_000_000
    // As text: 7,098 bodies, about four hours before the next-ranked member answers.
    expect(fallbackMs(tenMegabytes, o)).toBe(2000 + 2 * 7098 * 1000)
    // As one attachment: one body's time per 256 KiB, 80 s.
    expect(fallbackMs(tenMegabytes, o, true)).toBe(2000 + 2 * 39 * 1000)
    expect(fallbackMs(10, o, true)).toBe(fallbackMs(10, o))
  })
})
