/**
 * Secrets never leak: the sidecar (the real binary at debug level) and the chat loop run through a
 * session full of secrets — tokens in their environment, secrets typed into the document, secret
 * text and phone numbers in plain group messages, rate-limit and identity failures naming members —
 * and every log line and every body sent to Signal is scanned for them.
 */
import { decodeBody } from '@e2e-col/protocol'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { AGENT_SECRET, chatArgv, configFor, createWorld, LOOP, OPERATOR, startChat } from '@e2e-col/chat/testing'
import { SIDECAR_BIN } from '../src/sidecar-node.ts'
import { A, B, C, envelopeOf, open, sidecar, sidecarEnv, toyWithThree, update, wsUrl } from './edge.ts'
import { encodeEnvelope } from '@e2e-col/protocol'

const ENV_TOKEN = 'ghp_R3liabilityEnvToken0000000000000000'
const DOC_SECRET = 'doc-secret-Pa55phrase-9f8e7d'
const GROUP_SECRET = 'group-secret-sk-live-51HxYzAbCdEf'

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  expect(check()).toBe(true)
}

/** Every place a secret may not appear, and the texts to look in. */
function leaks(texts: readonly string[], secrets: readonly string[]): string[] {
  return texts.flatMap((t) =>
    secrets.filter((s) => t.includes(s)).map((s) => `${s} in ${JSON.stringify(t.slice(0, 160))}`),
  )
}

/** A body as the bytes it carries (so an envelope's payload is searched too), read as latin1. */
function bodyTexts(message: string): string[] {
  try {
    return [message, Buffer.from(decodeBody(message)).toString('latin1')]
  } catch {
    return [message]
  }
}

describe('no secret in logs or bodies', () => {
  it('the sidecar at debug level, through a session full of secrets', async () => {
    const toy = await toyWithThree()
    const docId = randomUUID()
    const groupId = toy.groups[0]?.id ?? ''
    const env = {
      ...sidecarEnv(toy, A, docId),
      E2E_COL_LOG_LEVEL: 'debug',
      DEPLOY_TOKEN: ENV_TOKEN,
      GITHUB_TOKEN: ENV_TOKEN,
      OPENAI_API_KEY: ENV_TOKEN,
    }
    const child = spawn(process.execPath, [SIDECAR_BIN], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    onTestFinished(() => void child.kill('SIGKILL'))
    let logs = ''
    child.stdout.on('data', (d: Buffer) => (logs += d.toString()))
    child.stderr.on('data', (d: Buffer) => (logs += d.toString()))
    const url = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = /"url":"([^"]+)"/.exec(logs)
        if (m?.[1] !== undefined) resolve(m[1])
      }
      child.stdout.on('data', check)
      child.once('exit', (code) => reject(new Error(`sidecar exited ${code}: ${logs}`)))
    })
    const sb = await sidecar(sidecarEnv(toy, B, docId))

    const a = await open(wsUrl({ url }, docId))
    const b = await open(wsUrl(sb, docId))
    const got: Buffer[] = []
    b.ws.on('message', (d: Buffer) => got.push(d))
    const sender = randomUUID()
    const answers: Buffer[] = []
    a.ws.on('message', (d: Buffer) => answers.push(d))
    // Secrets typed into the document, sent plainly and through failures that name members.
    a.ws.send(encodeEnvelope(envelopeOf(docId, sender, update(`${DOC_SECRET} 1`))))
    await until(() => got.length >= 1)
    toy.faults.rateLimitNextSends(1, { retryAfterSeconds: 1, mode: 'per-recipient' })
    a.ws.send(encodeEnvelope(envelopeOf(docId, sender, update(`${DOC_SECRET} 2`))))
    await until(() => got.length >= 2)
    toy.faults.identityFailNextSends(1, { mode: 'per-recipient' })
    a.ws.send(encodeEnvelope(envelopeOf(docId, sender, update(`${DOC_SECRET} 3`))))
    await until(() => answers.length >= 3)
    toy.faults.failNextSendsWith(1, { code: -1, message: `Failed to send message to ${B}` })
    a.ws.send(encodeEnvelope(envelopeOf(docId, sender, update(`${DOC_SECRET} 4`))))
    await until(() => answers.length >= 4)
    a.ws.send('text frame with a secret ' + DOC_SECRET)
    // Plain group chat with secrets and numbers, from another member.
    await fetch(`${toy.url}/api/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'send',
        params: { account: C, groupId, message: `${GROUP_SECRET} call me at ${C}` },
      }),
    })
    await until(() => answers.length >= 5)
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))

    const lines = logs.split('\n').filter((l) => l !== '')
    // The session produced log lines beyond the ready line (the rate-limit pause).
    expect(lines.length).toBeGreaterThanOrEqual(2)
    console.log(
      `secrets: sidecar wrote ${lines.length} log lines at debug level, sent ${toy.sends().filter((s) => s.account === A).length} bodies; none holds a secret`,
    )
    expect(leaks(lines, [ENV_TOKEN, DOC_SECRET, GROUP_SECRET, A, B, C])).toEqual([])
    const bodies = toy
      .sends()
      .filter((s) => s.account === A)
      .flatMap((s) => bodyTexts(s.message))
    expect(bodies.length).toBeGreaterThan(0)
    expect(leaks(bodies, [ENV_TOKEN, GROUP_SECRET, A, B, C])).toEqual([])
  }, 60_000)

  it('the chat loop, with tokens in its environment and the agent printing secrets', async () => {
    const world = await createWorld()
    onTestFinished(() => world.close())
    const chat = startChat(world, configFor(world, chatArgv('secrets')), { env: { GITHUB_TOKEN: ENV_TOKEN } })
    await chat.events.next('posted', (e) => e.text.includes('token from env'), 20_000)
    chat.stop.abort()
    await chat.exit
    const secrets = [
      AGENT_SECRET,
      ENV_TOKEN,
      'ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8',
      'AKIAUJZDE8GXD6NCF10E',
      'Xq9-pg-Pa55word',
      OPERATOR,
      LOOP,
    ]
    expect(chat.logs.length).toBeGreaterThan(0)
    expect(leaks(chat.logs, secrets)).toEqual([])
    const bodies = world.toy
      .sends()
      .filter((s) => s.account === LOOP)
      .flatMap((s) => bodyTexts(s.message))
    expect(bodies.length).toBeGreaterThan(0)
    expect(
      leaks(
        bodies,
        secrets.filter((s) => s !== LOOP && s !== OPERATOR),
      ),
    ).toEqual([])
    expect(leaks(bodies, [OPERATOR, LOOP])).toEqual([])
  }, 60_000)
})
