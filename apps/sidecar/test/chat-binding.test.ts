import { randomBytes } from 'node:crypto'
import { decodeBody, decodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { WebSocket } from 'ws'
import { chatIdForGroup } from '@e2e-col/signal-cli'
import { baseEnv, connect, isAck, sidecar, type Client } from './harness.ts'

const LOOP = '+33600000001'
const OPERATOR = '+33600000002'
const STRANGER = '+33600000003'
const LOCAL_PAGE = 'http://localhost:5173'

async function world(extra: Record<string, string> = {}) {
  const toy: ToySignal = await createToySignal({
    accounts: [LOOP, OPERATOR, STRANGER],
    groups: [
      { name: 'doc', members: [LOOP, OPERATOR] },
      { name: 'chat', members: [LOOP, OPERATOR, STRANGER] },
    ],
    keepAliveMs: 1000,
  })
  onTestFinished(() => toy.close())
  const groupId = toy.groups[1]?.id ?? ''
  const chatId = chatIdForGroup(groupId)
  const s = await sidecar(
    baseEnv(toy, LOOP, randomUUID(), {
      E2E_COL_CHATS: `${chatId}=${groupId}`,
      E2E_COL_CHAT_OPERATORS: OPERATOR,
      E2E_COL_CHAT_BROWSER_OPERATORS: '1',
      ...extra,
    }),
  )
  let id = 1
  const say = async (account: string, message: string) => {
    const res = await fetch(`${toy.url}/api/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'send', params: { account, groupId, message } }),
    })
    if (!res.ok) throw new Error(`send answered ${res.status}`)
  }
  return { toy, s, groupId, chatId, say }
}

let n = 0
function chatEnvelope(chatId: string, senderId: string, kind: Kind, payload: unknown): Envelope {
  return {
    kind,
    flags: 0,
    docId: chatId,
    senderId,
    messageId: randomBytes(16).toString('hex'),
    seq: n++,
    payload: new TextEncoder().encode(JSON.stringify(payload)),
  }
}
const json = (e: Envelope) => JSON.parse(new TextDecoder().decode(e.payload)) as Record<string, unknown>
const errorCode = (c: Client, messageId: string) =>
  c.waitFor((e) => e.kind === 'error' && e.messageId === messageId).then((e) => json(e)['code'])

/** The upgrade status of a WebSocket that is expected to be refused. */
function refusal(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      ws.terminate()
    })
    ws.on('open', () => {
      ws.terminate()
      reject(new Error('the upgrade was accepted'))
    })
    ws.on('error', () => undefined)
  })
}

describe('chat binding: browsers and the local loop', () => {
  it('relays an operator browser’s chat-prompt to the attached loop and the loop’s chat-reply to every browser', async () => {
    const { s, chatId } = await world()
    const loop = await connect(s, chatId, { path: `/v1/chats/${chatId}/loop` })
    const browser = await connect(s, chatId, { path: `/v1/chats/${chatId}`, origin: LOCAL_PAGE })
    const watcher = await connect(s, chatId, { path: `/v1/chats/${chatId}`, origin: 'http://127.0.0.1:8080' })
    const prompt = chatEnvelope(chatId, browser.senderId, 'chat-prompt', { text: 'review src/' })
    browser.send(prompt)
    await browser.waitFor(isAck(prompt.messageId))
    expect(json(await loop.waitFor((e) => e.messageId === prompt.messageId))).toEqual({ text: 'review src/' })
    const reply = chatEnvelope(chatId, loop.senderId, 'chat-reply', { text: 'looks fine', turn: 2 })
    loop.send(reply)
    for (const c of [browser, watcher])
      expect(json(await c.waitFor((e) => e.messageId === reply.messageId))).toEqual({ text: 'looks fine', turn: 2 })
  })

  it('lets a browser drive the loop only from a loopback page and when configured', async () => {
    const { s, chatId } = await world({ E2E_COL_CHAT_BROWSER_OPERATORS: '0' })
    const loop = await connect(s, chatId, { path: `/v1/chats/${chatId}/loop` })
    const browser = await connect(s, chatId, { path: `/v1/chats/${chatId}`, origin: LOCAL_PAGE })
    const prompt = chatEnvelope(chatId, browser.senderId, 'chat-control', { action: 'stop' })
    browser.send(prompt)
    expect(await errorCode(browser, prompt.messageId)).toBe('SIDECAR_CHAT_NOT_OPERATOR')
    const forged = chatEnvelope(chatId, browser.senderId, 'chat-reply', { text: 'forged' })
    browser.send(forged)
    expect(await errorCode(browser, forged.messageId)).toBe('SIDECAR_KIND_NOT_ALLOWED')
    expect(loop.received).toEqual([])

    const remote = await world({ E2E_COL_ALLOWED_ORIGINS: 'https://docs.example.org' })
    const page = await connect(remote.s, remote.chatId, {
      path: `/v1/chats/${remote.chatId}`,
      origin: 'https://docs.example.org',
    })
    const p = chatEnvelope(remote.chatId, page.senderId, 'chat-prompt', { text: 'hi' })
    page.send(p)
    expect(await errorCode(page, p.messageId)).toBe('SIDECAR_CHAT_NOT_OPERATOR')
  })

  it('admits one loop per chat, only as a local program, and a loop may bind only its own group', async () => {
    const { s, chatId, toy } = await world()
    const ws = s.url.replace('http', 'ws')
    expect(await refusal(`${ws}/v1/chats/${chatId}/loop`, { origin: LOCAL_PAGE })).toBe(403)
    await connect(s, chatId, { path: `/v1/chats/${chatId}/loop` })
    expect(await refusal(`${ws}/v1/chats/${chatId}/loop`)).toBe(409)
    expect(await refusal(`${ws}/v1/chats/${randomUUID()}`, { origin: LOCAL_PAGE })).toBe(404)
    const docGroup = toy.groups[0]?.id ?? ''
    expect(await refusal(`${ws}/v1/chats/${chatIdForGroup(docGroup)}/loop?group=${encodeURIComponent(docGroup)}`)).toBe(
      400,
    )
    expect(await refusal(`${ws}/v1/chats/${randomUUID()}/loop?group=${encodeURIComponent('b3RoZXI=')}`)).toBe(400)
    // A loop may bind a chat of its own group on the fly; browsers then reach it.
    const own = randomBytes(32).toString('base64')
    const ownChat = chatIdForGroup(own)
    await connect(s, ownChat, { path: `/v1/chats/${ownChat}/loop?group=${encodeURIComponent(own)}` })
    await connect(s, ownChat, { path: `/v1/chats/${ownChat}`, origin: LOCAL_PAGE })
  })

  it('lifts plain text of the group for browsers while no loop is attached: operator → chat-prompt, loop account → chat-reply', async () => {
    const { s, chatId, say } = await world()
    const browser = await connect(s, chatId, { path: `/v1/chats/${chatId}`, origin: LOCAL_PAGE })
    await say(STRANGER, 'not shown')
    await say(OPERATOR, 'e2e-col:v1:AAAA')
    await say(OPERATOR, 'what changed?')
    const prompt = await browser.waitFor((e) => e.kind === 'chat-prompt')
    expect(json(prompt)).toMatchObject({ text: 'what changed?', from: 'phone' })
    await say(LOOP, 'two files')
    expect(json(await browser.waitFor((e) => e.kind === 'chat-reply'))).toEqual({ text: 'two files' })
    expect(browser.received.map((e) => e.kind)).toEqual(['chat-prompt', 'chat-reply'])
  })

  it('posts an operator browser’s prompt to the group as one e2e-col body when no loop is attached here', async () => {
    const { s, chatId, toy, groupId } = await world()
    const browser = await connect(s, chatId, { path: `/v1/chats/${chatId}`, origin: LOCAL_PAGE })
    const prompt = chatEnvelope(chatId, browser.senderId, 'chat-prompt', { text: 'from a remote console' })
    browser.send(prompt)
    await browser.waitFor(isAck(prompt.messageId))
    const sent = toy.sends().filter((r) => r.groupId === groupId)
    expect(sent).toHaveLength(1)
    const env = decodeEnvelope(decodeBody(sent[0]?.message ?? ''))
    expect({ kind: env.kind, docId: env.docId, payload: json(env) }).toEqual({
      kind: 'chat-prompt',
      docId: chatId,
      payload: { text: 'from a remote console' },
    })
  })
})
