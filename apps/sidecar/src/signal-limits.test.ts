import { describe, expect, it } from 'vitest'
import { checkSignalLimits } from './signal-limits.ts'

const config = (maxBodyBytes: number, maxFrameBytes: number, attachments = true, allowLongBodies = false) => ({
  maxBodyBytes,
  allowLongBodies,
  capabilities: attachments ? (['deflate', 'attachments'] as const) : (['deflate'] as const),
  browser: { maxFrameBytes },
})

describe("the sidecar's bounds against Signal's, at start", () => {
  it("takes bounds within Signal's limits, up to each limit exactly", () => {
    expect(() => checkSignalLimits(config(2000, 2 * 1024 * 1024))).not.toThrow()
    expect(() => checkSignalLimits(config(96 * 1024, 100 * 1024 * 1024 - 66))).not.toThrow()
  })

  it('measures a long body against the attachment limit, as signal-cli carries it so', () => {
    expect(() => checkSignalLimits(config(200_000, 1024, true, true))).not.toThrow()
    expect(() => checkSignalLimits(config(100 * 1024 * 1024 + 1, 1024, true, true))).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(/limit for a long-text attachment/),
      }),
    )
  })

  it("refuses a body bound over one message's content limit, naming the variable", () => {
    expect(() => checkSignalLimits(config(96 * 1024 + 1, 1024))).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(
          /^E2E_COL_SIGNAL_BODY_MAX_BYTES=98305 is over Signal's limit for one message \(98304 bytes\)/,
        ),
      }),
    )
  })

  it('refuses a frame bound whose attachments would pass 100 MiB, only when attachments are sent', () => {
    const big = 100 * 1024 * 1024
    expect(() => checkSignalLimits(config(2000, big))).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(/^E2E_COL_MAX_FRAME_BYTES=104857600 .* over Signal's attachment limit/),
      }),
    )
    expect(() => checkSignalLimits(config(2000, big, false))).not.toThrow()
  })
})
