import { describe, expect, it } from 'vitest'
import type { SignalEvent } from './backend.ts'
import { readSignalEvents } from './sse-reader.ts'

const ACCOUNT = '+33600000001'
const GROUP = 'R0lGdW1teUdyb3VwSWRGb3JQdWJsaWNUZXN0aW5nMDA='
const data = (message: string) => ({
  envelope: {
    sourceNumber: '+33700000000',
    timestamp: 1,
    dataMessage: { timestamp: 1, message, groupInfo: { groupId: GROUP, type: 'DELIVER' } },
  },
  account: ACCOUNT,
})

async function collect(parts: string[]): Promise<SignalEvent[]> {
  const enc = new TextEncoder()
  async function* bytes() {
    for (const p of parts) yield enc.encode(p)
  }
  const out: SignalEvent[] = []
  for await (const e of readSignalEvents(bytes(), ACCOUNT)) out.push(e)
  return out
}

const message = (body: string) => ({
  type: 'message',
  groupId: GROUP,
  body,
  origin: 'data',
  timestamp: 1,
  sourceNumber: '+33700000000',
  sourceUuid: undefined,
  sourceDevice: undefined,
  account: ACCOUNT,
})

describe('events stream reader', () => {
  it('reads the daemon framing: event:receive, data without a space, keep-alive comments', async () => {
    const text = `:\n\nevent:receive\ndata:${JSON.stringify(data('one'))}\n\n:\n`
    expect(await collect([text])).toEqual([message('one')])
  })

  it('reads CRLF line endings and events split at every byte boundary', async () => {
    const text = `event: receive\r\ndata: ${JSON.stringify(data('two'))}\r\n\r\n`
    for (let cut = 1; cut < text.length; cut += 7) {
      expect(await collect([text.slice(0, cut), text.slice(cut)])).toEqual([message('two')])
    }
  })

  it('accepts the JSON-RPC notification and the subscription shapes', async () => {
    const rpc = { jsonrpc: '2.0', method: 'receive', params: data('rpc') }
    const sub = { jsonrpc: '2.0', method: 'receive', params: { subscription: 0, result: data('sub') } }
    expect(await collect([`data:${JSON.stringify(rpc)}\n\ndata:${JSON.stringify(sub)}\n\n`])).toEqual([
      message('rpc'),
      message('sub'),
    ])
  })

  it('takes a sync copy of an own send from syncMessage.sentMessage', async () => {
    const sync = {
      envelope: { syncMessage: { sentMessage: { destination: null, message: 'mine', groupInfo: { groupId: GROUP } } } },
      account: ACCOUNT,
    }
    expect(await collect([`event:receive\ndata:${JSON.stringify(sync)}\n\n`])).toEqual([
      { ...message('mine'), origin: 'sync', timestamp: undefined, sourceNumber: undefined },
    ])
  })

  it('counts malformed data, other event names, other accounts, body-less and direct messages as skips', async () => {
    const receipt = { envelope: { receiptMessage: { when: 1 } }, account: ACCOUNT }
    const direct = { envelope: { dataMessage: { message: 'hi' } }, account: ACCOUNT }
    const other = { ...data('x'), account: '+33600000002' }
    const failed = {
      exception: { message: 'decryption failed', type: 'ProtocolInvalidMessageException' },
      envelope: { source: null },
      account: ACCOUNT,
    }
    const events = await collect([
      'data:{not json\n\n',
      'event:typing\ndata:{}\n\n',
      `data:${JSON.stringify(other)}\n\n`,
      `data:${JSON.stringify(receipt)}\n\n`,
      `data:${JSON.stringify(direct)}\n\n`,
      `data:${JSON.stringify(failed)}\n\n`,
      'data:[1,2]\n\n',
    ])
    expect(events.map((e) => (e.type === 'skipped' ? e.reason : e.type))).toEqual([
      'malformed',
      'unrelated-event',
      'other-account',
      'no-body',
      'not-group',
      'exception',
      'malformed',
    ])
  })

  it('keeps going after a skip', async () => {
    expect(await collect(['data:garbage\n\n', `data:${JSON.stringify(data('after'))}\n\n`])).toContainEqual(
      message('after'),
    )
  })
})
