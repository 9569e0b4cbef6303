import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { chatIdForGroup } from '@e2e-col/signal-cli'

const DOC = '0190a6c8-1111-4222-8333-444455556666'
const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const CHAT_GROUP = 'R0lGdW1teUdyb3VwSWRGb3JQdWJsaWNUZXN0aW5nMDA='
const CHAT = chatIdForGroup(CHAT_GROUP)
const valid = {
  E2E_COL_DOCUMENTS: `${DOC}=${GROUP}`,
  E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
  HOME: '/home/ada',
  SIGNAL_CLI_ACCOUNT: '+33600000001',
}

describe('chat binding configuration', () => {
  it('binds no chat and admits no browser operator by default; the loop account is the sidecar’s', () => {
    expect(loadConfig(valid).chats).toEqual({
      bindings: [],
      operators: [],
      loopAccount: '+33600000001',
      browserOperators: false,
    })
  })
  it('reads chat bindings, operators, the loop account and the browser switch', () => {
    const c = loadConfig({
      ...valid,
      E2E_COL_CHATS: `${CHAT.toUpperCase()}=${CHAT_GROUP}`,
      E2E_COL_CHAT_OPERATORS: '+33600000002, +33600000003',
      E2E_COL_CHAT_LOOP_ACCOUNT: '+33600000009',
      E2E_COL_CHAT_BROWSER_OPERATORS: '1',
    })
    expect(c.chats).toEqual({
      bindings: [{ chatId: CHAT, groupId: CHAT_GROUP }],
      operators: ['+33600000002', '+33600000003'],
      loopAccount: '+33600000009',
      browserOperators: true,
    })
  })
  it('refuses a chat that reuses a document’s group, a bad pair and a malformed operator', () => {
    expect(() => loadConfig({ ...valid, E2E_COL_CHATS: `${CHAT}=${GROUP}` })).toThrow(
      /reuses a document's id or group[\s\S]*E2E_COL_CHATS/,
    )
    expect(() => loadConfig({ ...valid, E2E_COL_CHATS: 'not-a-uuid=abc=' })).toThrow(/key must be a chat UUID/)
    expect(() => loadConfig({ ...valid, E2E_COL_CHAT_OPERATORS: '0612345678' })).toThrow(/E2E_COL_CHAT_OPERATORS/)
  })
  it('derives one chat id per group, stable and UUID-shaped', () => {
    expect(chatIdForGroup(CHAT_GROUP)).toBe(CHAT)
    expect(CHAT).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(chatIdForGroup(GROUP)).not.toBe(CHAT)
  })
})
