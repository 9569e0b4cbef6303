import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeEnvelope, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'
import { chatIdForGroup } from '@e2e-col/signal-cli'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { chatIn, LOOP, OPERATOR, until, useWorld, type World } from './harness.ts'

const worlds = useWorld()

/** The loop's own sidecar, on the loop's account, with loopback browsers admitted as operators. */
async function startLocalSidecar(w: World): Promise<RunningSidecar> {
  const doc = (await w.rpc(LOOP, 'updateGroup', { name: 'doc', members: [OPERATOR] })) as { groupId: string }
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-chat-sidecar-'))
  worlds.defer(() => rmSync(dataDir, { recursive: true, force: true }))
  const sidecar = await startSidecar(
    loadConfig({
      SIGNAL_CLI_URL: w.toy.url,
      SIGNAL_CLI_ACCOUNT: LOOP,
      E2E_COL_DOCUMENTS: `${randomUUID()}=${doc.groupId}`,
      E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
      E2E_COL_LISTEN: '127.0.0.1:0',
      E2E_COL_DATA_DIR: dataDir,
      E2E_COL_SYNC_ON_START: '0',
      E2E_COL_LOG_LEVEL: 'silent',
      E2E_COL_CHAT_OPERATORS: OPERATOR,
      E2E_COL_CHAT_BROWSER_OPERATORS: '1',
    }),
  )
  worlds.defer(() => sidecar.close())
  return sidecar
}

/** A browser tab of the chat console: a raw WebSocket from a loopback page. */
async function openConsole(s: RunningSidecar, chatId: string) {
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v1/chats/${chatId}`, { origin: 'http://localhost:5173' })
  const received: Envelope[] = []
  ws.on('message', (data: Buffer) => received.push(decodeEnvelope(new Uint8Array(data))))
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  const senderId = randomUUID()
  let seq = 0
  return {
    received,
    payloads: (kind: string) =>
      received
        .filter((e) => e.kind === kind)
        .map((e) => JSON.parse(new TextDecoder().decode(e.payload)) as Record<string, unknown>),
    send(kind: 'chat-prompt' | 'chat-control', payload: unknown): string {
      const messageId = randomBytes(16).toString('hex')
      ws.send(
        encodeEnvelope({
          kind,
          flags: 0,
          docId: chatId,
          senderId,
          messageId,
          seq: seq++,
          payload: new TextEncoder().encode(JSON.stringify(payload)),
        }),
      )
      return messageId
    },
    close: () => ws.terminate(),
  }
}

describe('a browser console through the local sidecar', () => {
  it('a chat-prompt from a loopback browser drives a turn with the fake agent and comes back as chat-status receipts and a chat-reply', async () => {
    const world = await worlds.world()
    const sidecar = await startLocalSidecar(world)
    const chat = chatIn(world, 'echo topic', ['--sidecar', sidecar.url.replace('http', 'ws')])
    const { groupId, sessionId } = await chat.ready
    await chat.turnEnded(1)
    await until(() => chat.logs.some((l) => l.includes('attached to the sidecar')))

    const browser = await openConsole(sidecar, chatIdForGroup(groupId))
    const ref = browser.send('chat-prompt', { text: 'echo from the browser' })
    await until(() =>
      browser.payloads('chat-reply').some((p) => String(p['text']).includes('prompt=echo from the browser')),
    )
    expect(browser.received.some((e) => e.kind === 'ack' && e.messageId === ref)).toBe(true)
    // `done` comes once the reply is in the group too, so possibly after the console has it.
    await until(
      () => browser.payloads('chat-status').some((p) => p['ref'] === ref && p['state'] === 'done'),
      10_000,
      'the done status',
    )
    expect(
      browser
        .payloads('chat-status')
        .filter((p) => p['ref'] === ref)
        .map((p) => p['state']),
    ).toEqual(['queued', 'running', 'done'])
    expect(browser.payloads('chat-prompt')).toContainEqual({ text: 'echo from the browser', from: 'console', ref })
    expect(world.agentRuns().map((r) => [r.sessionId, r.prompt])).toEqual([
      [sessionId, 'echo topic'],
      [sessionId, 'echo from the browser'],
    ])
    // Phones get plain text: the console's prompt and the reply, never an envelope.
    await chat.events.next('posted', (e) => e.text === '[console] echo from the browser')
    expect(
      world.toy
        .sends()
        .filter((s) => s.groupId === groupId)
        .every((s) => !s.message.startsWith('e2e-col:')),
    ).toBe(true)

    browser.send('chat-control', { action: 'stop' })
    expect(await chat.exit).toBe(0)
    await until(() => browser.payloads('chat-status').some((p) => p['text'] === 'the chat has ended'))
    browser.close()
  })

  it('refuses a sidecar that is not on loopback (exit 2) before touching the daemon', async () => {
    const world = await worlds.world()
    const chat = chatIn(world, 't', ['--sidecar', 'ws://10.1.2.3:7600'])
    expect(await chat.exit).toBe(2)
    expect(world.toy.sends()).toEqual([])
  })
})
