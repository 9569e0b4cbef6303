import { describe, expect, it } from 'vitest'
import { resolvesSignalHost, SIGNAL_CHAT_HOST } from './signal-reachability.ts'

const failing = (): Promise<unknown> => Promise.reject(new Error('getaddrinfo ENOTFOUND chat.signal.org'))
const hanging = (): Promise<unknown> => new Promise(() => {})

describe('resolvesSignalHost', () => {
  it("is true when Signal's chat host resolves, and looks up exactly that host", async () => {
    const asked: string[] = []
    const lookup = async (host: string): Promise<unknown> => {
      asked.push(host)
      return { address: '203.0.113.1', family: 4 }
    }
    expect(await resolvesSignalHost({ lookup })).toBe(true)
    expect(asked).toEqual([SIGNAL_CHAT_HOST])
    expect(SIGNAL_CHAT_HOST).toBe('chat.signal.org')
  })

  it('is false when the lookup fails', async () => {
    expect(await resolvesSignalHost({ lookup: failing })).toBe(false)
  })

  it('is false when the lookup has not answered by the deadline', async () => {
    expect(await resolvesSignalHost({ lookup: hanging, timeoutMs: 20 })).toBe(false)
  })
})
