import { randomBytes } from 'node:crypto'
import { decodeEnvelope, encodeEnvelope, isUuid, newMessageId } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import { chatIdForGroup, consoleInputFromFrame, frameFromConsoleOutput } from './chat-envelopes.ts'

const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const chatId = chatIdForGroup(GROUP)
const browser = '0b7e4a52-4c1d-4a9e-8f41-6a2d1c3b4e5f'
const frame = (kind: 'chat-prompt' | 'chat-control' | 'update', payload: unknown, docId = chatId) =>
  encodeEnvelope({
    kind,
    flags: 0,
    docId,
    senderId: browser,
    messageId: 'a'.repeat(32),
    seq: 1,
    payload: new TextEncoder().encode(JSON.stringify(payload)),
  })

describe('chat envelopes', () => {
  it('maps a group id to one stable, canonical chat id', () => {
    expect(isUuid(chatId)).toBe(true)
    expect(chatIdForGroup(GROUP)).toBe(chatId)
    expect(chatIdForGroup('b3RoZXI=')).not.toBe(chatId)
  })
  it('reads a browser prompt and a control action as console inputs', () => {
    expect(consoleInputFromFrame(frame('chat-prompt', { text: 'review src' }), chatId)).toEqual({
      text: 'review src',
      ref: 'a'.repeat(32),
    })
    expect(consoleInputFromFrame(frame('chat-control', { action: 'cancel' }), chatId)).toEqual({
      text: 'cancel',
      ref: 'a'.repeat(32),
    })
  })
  it('refuses frames for another chat, other kinds, bad payloads and garbage with CHAT_USAGE', () => {
    for (const bad of [
      frame('chat-prompt', { text: 'x' }, browser),
      frame('update', { text: 'x' }),
      frame('chat-prompt', { text: '' }),
      frame('chat-prompt', { text: 'x', extra: 1 }),
      frame('chat-control', { action: 'rm -rf' }),
      new Uint8Array([1, 2, 3]),
    ]) {
      expect(() => consoleInputFromFrame(bad, chatId)).toThrow(expect.objectContaining({ code: 'CHAT_USAGE' }))
    }
  })
  it('writes replies as chat-reply envelopes of the chat with a JSON payload', () => {
    let seq = 0
    const bytes = frameFromConsoleOutput(
      { kind: 'chat-reply', text: 'done ✓', turn: 2 },
      { chatId, senderId: browser, nextSeq: () => seq++, newMessageId: () => newMessageId((n) => randomBytes(n)) },
    )
    const env = decodeEnvelope(bytes)
    expect(env).toMatchObject({ kind: 'chat-reply', docId: chatId, seq: 0 })
    expect(JSON.parse(new TextDecoder().decode(env.payload))).toEqual({ text: 'done ✓', turn: 2 })
  })
})
