import { describe, expect, it } from 'vitest'
import { checkGroupSize, checkMessageSize, contentBytes, SIGNAL_LIMITS } from './platform-limits.ts'

const refusal = {
  rpcCode: -32603,
  message: 'Failed to send message: [413] Rate limit exceeded: 413 (RateLimitException) (UnexpectedErrorException)',
}

describe("Signal's platform limits in the toy", () => {
  it('counts a body only up to the long-text cut, the rest going as an attachment pointer', () => {
    expect(contentBytes('é'.repeat(10), 0)).toBe(20)
    expect(contentBytes('x'.repeat(2000), 0)).toBe(2000)
    expect(contentBytes('x'.repeat(500_000), 0)).toBe(2000 + 160)
    expect(contentBytes('', 3)).toBe(3 * 160)
  })

  it('refuses content over 96 KiB with the 413 a real daemon reports, and takes 96 KiB', () => {
    expect(() => checkMessageSize(SIGNAL_LIMITS.contentBytes, [])).not.toThrow()
    expect(() => checkMessageSize(SIGNAL_LIMITS.contentBytes + 1, [])).toThrow(expect.objectContaining(refusal))
  })

  it('refuses a group send past 256 KiB + 32 bytes once every recipient is counted', () => {
    const content = 90 * 1024
    expect(() => checkMessageSize(content, [1000])).not.toThrow()
    expect(() => checkMessageSize(content, [4000])).toThrow(expect.objectContaining(refusal))
  })

  it('allows 1,001 members in a group and no more', () => {
    expect(() => checkGroupSize(1001)).not.toThrow()
    expect(() => checkGroupSize(1002)).toThrow(expect.objectContaining({ rpcCode: -32603 }))
  })
})
