import { describe, expect, it } from 'vitest'
import { createConversation } from './conversation.ts'

describe('console conversation', () => {
  it('shows a typed prompt at once and moves it through the loop’s receipts', () => {
    const c = createConversation()
    c.typed('m1', 'review src/')
    c.apply({ kind: 'ack', ref: 'm1' })
    expect(c.entries[0]).toMatchObject({ who: 'you', text: 'review src/', state: 'delivered' })
    c.apply({ kind: 'chat-prompt', id: 'e1', text: 'review src/', from: 'console', ref: 'm1' })
    c.apply({ kind: 'chat-status', id: 'e2', ref: 'm1', state: 'running', text: undefined })
    expect(c.entries).toHaveLength(1)
    expect(c.entries[0]?.state).toBe('running')
    c.apply({ kind: 'chat-status', id: 'e3', ref: 'm1', state: 'done', text: undefined })
    c.apply({ kind: 'chat-reply', id: 'e4', text: 'two files changed', turn: 2 })
    expect(c.entries.map((e) => [e.who, e.text, e.state])).toEqual([
      ['you', 'review src/', 'done'],
      ['agent', 'two files changed', undefined],
    ])
    expect(c.statusLine).toBe('turn 2 answered')
  })

  it('shows phone prompts, other consoles and notes, and says why a prompt was refused', () => {
    const c = createConversation()
    c.apply({ kind: 'chat-prompt', id: 'e1', text: 'from my phone', from: 'phone', ref: '1788351979717' })
    c.apply({ kind: 'chat-prompt', id: 'e2', text: 'from another tab', from: 'console', ref: 'zz' })
    c.apply({ kind: 'chat-status', id: 'e3', ref: undefined, state: 'info', text: 'the chat has ended' })
    c.typed('m9', 'hello')
    c.apply({
      kind: 'error',
      ref: 'm9',
      code: 'SIDECAR_CHAT_NOT_OPERATOR',
      message: 'this browser may follow the chat but not drive it',
    })
    expect(c.entries.map((e) => [e.who, e.state])).toEqual([
      ['phone', undefined],
      ['console', undefined],
      ['note', undefined],
      ['you', 'refused'],
    ])
    expect(c.statusLine).toContain('SIDECAR_CHAT_NOT_OPERATOR')
  })
})
