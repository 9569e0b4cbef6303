import { SignalEventsRefusedError, SignalRpcError, SignalUnavailableError } from '@e2e-col/signal-cli'
import { describe, expect, it, vi } from 'vitest'
import { createLinkWatch, isUnlinked, watchLink } from './linked-device.ts'

const rpc = (code: number, message: string) => new SignalRpcError(code, message)
const gone = rpc(-32602, 'Specified account does not exist')

function logger() {
  return { error: vi.fn(), info: vi.fn() }
}

describe('isUnlinked', () => {
  it("reads the daemon dropping the account, Signal's authorization failure and the refused stream", () => {
    expect(isUnlinked(gone)).toBe(true)
    expect(
      isUnlinked(
        rpc(
          -32603,
          'Failed to send message: [401] Authorization failed! (AuthorizationFailedException) (UnexpectedErrorException)',
        ),
      ),
    ).toBe(true)
    expect(isUnlinked(new SignalEventsRefusedError(400, 'refused'))).toBe(true)
  })

  it("does not read Signal's 403 to a group change (not permitted) as an unlinked device", () => {
    expect(
      isUnlinked(rpc(-32603, 'Failed to send message: [403] Authorization failed! (AuthorizationFailedException)')),
    ).toBe(false)
  })

  it('leaves every other failure alone', () => {
    expect(isUnlinked(rpc(-32602, 'Method requires valid account parameter'))).toBe(false)
    expect(
      isUnlinked(rpc(-32603, 'Failed to send message: No connection! (IOException) (UnexpectedErrorException)')),
    ).toBe(false)
    expect(isUnlinked(new SignalEventsRefusedError(500, 'down'))).toBe(false)
    expect(isUnlinked(new SignalUnavailableError('down'))).toBe(false)
  })
})

describe('LinkWatch', () => {
  it('logs once per episode with the way back, and clears when the account answers', () => {
    const log = logger()
    let now = 5
    const watch = createLinkWatch({ logger: log as never, now: () => now })
    // Before start, the start-up checks speak for themselves.
    watch.failed(gone)
    expect(watch.unlinked).toBe(false)
    watch.start()
    watch.failed(gone)
    now = 9
    watch.failed(gone)
    expect([watch.unlinked, watch.since]).toEqual([true, 5])
    expect(log.error).toHaveBeenCalledTimes(1)
    expect(log.error.mock.calls[0]?.[1]).toMatch(
      /^This computer is no longer linked to your Signal: run `e2e-col setup --link` \(Signal removes a linked device idle for more than 45 days\)/,
    )
    watch.answered()
    expect([watch.unlinked, watch.since]).toEqual([false, null])
    expect(log.info).toHaveBeenCalledTimes(1)
  })
})

describe('watchLink', () => {
  it('reports account calls and passes results and errors through; account-free calls are not counted', async () => {
    const log = logger()
    const watch = createLinkWatch({ logger: log as never, now: () => 1 })
    watch.start()
    let fail = true
    const backend = {
      listGroups: async () => {
        if (fail) throw gone
        return ['g']
      },
      version: async () => '0.13.19',
      name: 'x',
    }
    const watched = watchLink(backend, watch)
    await expect(watched.listGroups()).rejects.toBe(gone)
    expect(watch.unlinked).toBe(true)
    await watched.version()
    expect(watch.unlinked).toBe(true)
    fail = false
    await expect(watched.listGroups()).resolves.toEqual(['g'])
    expect(watch.unlinked).toBe(false)
    expect(watched.name).toBe('x')
  })
})
