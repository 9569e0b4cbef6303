import { describe, expect, it } from 'vitest'
import { readConsoleParams } from './console-params.ts'

const CHAT = '0b7e4a52-4c1d-8a9e-8f41-6a2d1c3b4e5f'

describe('console page address', () => {
  it('builds the chat socket address from the sidecar and the chat id', () => {
    expect(readConsoleParams(`?sidecar=ws://127.0.0.1:7600&chat=${CHAT.toUpperCase()}`)).toEqual({
      ok: true,
      params: { socketUrl: `ws://127.0.0.1:7600/v1/chats/${CHAT}`, chatId: CHAT },
    })
    expect(readConsoleParams(`?sidecar=http://localhost:7600/&chat=${CHAT}`)).toMatchObject({
      ok: true,
      params: { socketUrl: `ws://localhost:7600/v1/chats/${CHAT}` },
    })
  })
  it('explains what is missing', () => {
    expect(readConsoleParams(`?chat=${CHAT}`)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('?sidecar='),
    })
    expect(readConsoleParams('?sidecar=ws://127.0.0.1:7600&chat=nope')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('?chat='),
    })
    expect(readConsoleParams(`?sidecar=ftp://x&chat=${CHAT}`)).toMatchObject({ ok: false })
  })
})
