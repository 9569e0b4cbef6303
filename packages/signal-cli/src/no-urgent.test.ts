import { afterEach, describe, expect, it } from 'vitest'
import { SignalUnavailableError } from './errors.ts'
import { createHttpSignalBackend } from './http-backend.ts'
import { fakeDaemon, type FakeDaemon } from '../test/fake-daemon.ts'

const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

const daemons: FakeDaemon[] = []
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.close()))
})

/**
 * A backend over a local daemon answering `version` with `version` (`null`: no such method; `'down'`:
 * HTTP 500 once, then `0.14.6`), recording every request body.
 */
async function daemon(version: string | null | 'down', noUrgent: boolean | undefined) {
  const bodies: Record<string, unknown>[] = []
  let down = version === 'down'
  const result = (body: Record<string, unknown>): unknown => {
    if (body['method'] !== 'version') return { result: { timestamp: 1721686852997, results: [] } }
    if (version === null) return { error: { code: -32601, message: 'Method not implemented', data: null } }
    return { result: { version: version === 'down' ? '0.14.6' : version } }
  }
  const fake = await fakeDaemon((request) => {
    if (request.path !== '/api/v1/rpc' || request.method !== 'POST') return { status: 404, text: '' }
    const parsed = JSON.parse(request.body) as Record<string, unknown>
    bodies.push(parsed)
    if (down && parsed['method'] === 'version') {
      down = false
      return { status: 500, text: '' }
    }
    const text = JSON.stringify({ jsonrpc: '2.0', id: parsed['id'], ...(result(parsed) as object) })
    return { status: 200, text, type: 'application/json' }
  })
  daemons.push(fake)
  const backend = createHttpSignalBackend({
    url: fake.origin,
    account: '+33600000001',
    timeoutMs: 2000,
    streamIdleMs: 60_000,
    ...(noUrgent === undefined ? {} : { noUrgent }),
  })
  const sends = () => bodies.filter((b) => b['method'] === 'send').map((b) => b['params'] as Record<string, unknown>)
  const probes = () => bodies.filter((b) => b['method'] === 'version').length
  const paramsOf = (method: string) => bodies.filter((b) => b['method'] === method).map((b) => b['params'])
  return { backend, sends, probes, paramsOf }
}

describe('machine sends without the urgent flag (noUrgent)', () => {
  it('carry noUrgent: true to a 0.14.0+ daemon, its version asked once for every send', async () => {
    const d = await daemon('0.14.6', true)
    await d.backend.sendGroupMessage(GROUP, 'a')
    await d.backend.sendGroupMessage(GROUP, 'b', ['data:;base64,AA=='])
    expect(d.sends().map((p) => p['noUrgent'])).toEqual([true, true])
    expect(d.probes()).toBe(1)
  })

  it('except a message to one person (a mention): urgent, to that recipient alone', async () => {
    const d = await daemon('0.14.6', true)
    await d.backend.notifyPerson('+33600000002', 'Mentioned you')
    expect(d.sends()).toEqual([{ account: '+33600000001', recipient: ['+33600000002'], message: 'Mentioned you' }])
  })

  it("and a Note to Self: urgent, to the account's own Note to Self", async () => {
    const d = await daemon('0.14.6', true)
    await d.backend.sendNoteToSelf('Claude suggests 1 change')
    expect(d.sends()).toEqual([{ account: '+33600000001', noteToSelf: true, message: 'Claude suggests 1 change' }])
  })

  it('never send the unknown param to a daemon before 0.14.0, nor to one without `version`', async () => {
    for (const version of ['0.13.19', null]) {
      const d = await daemon(version, true)
      await d.backend.sendGroupMessage(GROUP, 'a')
      expect(d.sends()[0]).not.toHaveProperty('noUrgent')
    }
  })

  it('reuse the version the start-up probe read, without asking again', async () => {
    const d = await daemon('0.14.0', true)
    expect(await d.backend.version()).toBe('0.14.0')
    await d.backend.sendGroupMessage(GROUP, 'a')
    expect([d.probes(), d.sends()[0]?.['noUrgent']]).toEqual([1, true])
  })

  it('leave messages urgent and the daemon unasked without the option', async () => {
    const d = await daemon('0.14.6', undefined)
    await d.backend.sendGroupMessage(GROUP, 'to a person')
    expect(d.sends()[0]).not.toHaveProperty('noUrgent')
    expect(d.probes()).toBe(0)
  })

  it('fail the send as unavailable when the version cannot be read, and ask again next time', async () => {
    const d = await daemon('down', true)
    await expect(d.backend.sendGroupMessage(GROUP, 'a')).rejects.toBeInstanceOf(SignalUnavailableError)
    expect(d.sends()).toEqual([])
    await d.backend.sendGroupMessage(GROUP, 'a')
    expect([d.probes(), d.sends()[0]?.['noUrgent']]).toEqual([2, true])
  })
})

describe('terminateGroup, asked only of a daemon that has it (0.14.8+)', () => {
  it('is sent to 0.14.8 and resolves true; an older daemon is not asked and it resolves false', async () => {
    const recent = await daemon('0.14.8', undefined)
    expect(await recent.backend.terminateGroup(GROUP)).toBe(true)
    expect(recent.paramsOf('terminateGroup')).toEqual([{ account: '+33600000001', groupId: GROUP }])
    const old = await daemon('0.13.19', undefined)
    expect(await old.backend.terminateGroup(GROUP)).toBe(false)
    expect([old.probes(), old.paramsOf('terminateGroup')]).toEqual([1, []])
  })
})
