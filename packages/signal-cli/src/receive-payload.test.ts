import { describe, expect, it } from 'vitest'
import { parseReceivePayload } from './receive-payload.ts'

const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

describe('receive payloads carry what the chat gate needs', () => {
  it('reads a group dataMessage as signal-cli sends it over SSE', () => {
    const data = `{"envelope":{"source":"+33700000000","sourceNumber":"+33700000000","sourceUuid":"22222222-2222-4222-8222-222222222222","sourceName":"Test Contact","sourceDevice":1,"timestamp":1788351979717,"serverReceivedTimestamp":1788351982867,"serverDeliveredTimestamp":1788351982892,"dataMessage":{"timestamp":1788351979717,"message":"hello group","expiresInSeconds":0,"isExpirationUpdate":false,"viewOnce":false,"groupInfo":{"groupId":"R0lGdW1teUdyb3VwSWRGb3JQdWJsaWNUZXN0aW5nMDA=","groupName":"Test Group","revision":4,"type":"DELIVER"}}},"account":"+33600000000"}`
    expect(parseReceivePayload(data, undefined)).toEqual({
      type: 'message',
      account: '+33600000000',
      origin: 'data',
      sourceNumber: '+33700000000',
      sourceUuid: '22222222-2222-4222-8222-222222222222',
      sourceDevice: 1,
      timestamp: 1788351979717,
      groupId: 'R0lGdW1teUdyb3VwSWRGb3JQdWJsaWNUZXN0aW5nMDA=',
      body: 'hello group',
    })
  })
  it('reads a sync sentMessage with its source device', () => {
    const data = `{"envelope":{"source":"+X","sourceNumber":"+15550000001","sourceDevice":2,"timestamp":1744235749734,"syncMessage":{"sentMessage":{"destination":null,"timestamp":1744235749734,"message":"Foo","groupInfo":{"groupId":"${GROUP}","type":"DELIVER"}}}},"account":"+15550000001"}`
    expect(parseReceivePayload(data, undefined)).toMatchObject({
      origin: 'sync',
      sourceDevice: 2,
      body: 'Foo',
      groupId: GROUP,
    })
  })
  it('ignores receipts, typing, exceptions and garbage', () => {
    expect(
      parseReceivePayload(
        '{"envelope":{"sourceNumber":"+1","timestamp":1,"receiptMessage":{"when":1,"isDelivery":true,"timestamps":[1]}},"account":"+2"}',
        undefined,
      ),
    ).toMatchObject({ type: 'skipped' })
    expect(
      parseReceivePayload(
        '{"envelope":{"sourceNumber":"+1","timestamp":1,"typingMessage":{"action":"STARTED","timestamp":1}},"account":"+2"}',
        undefined,
      ),
    ).toMatchObject({ type: 'skipped' })
    expect(
      parseReceivePayload(
        '{"exception":{"message":"decryption failed","type":"ProtocolInvalidMessageException"},"envelope":{"source":null,"sourceNumber":null,"sourceUuid":null,"sourceName":null,"sourceDevice":null,"timestamp":1},"account":"+Y"}',
        undefined,
      ),
    ).toMatchObject({ type: 'skipped' })
    expect(parseReceivePayload('not json', undefined)).toMatchObject({ type: 'skipped' })
    expect(parseReceivePayload('{"envelope":{"timestamp":"soon"}}', undefined)).toMatchObject({ type: 'skipped' })
  })
})

describe('group changes on the events stream', () => {
  it("reads an UPDATE without a body as a group update, from a member or from the own account's other device", () => {
    const data = {
      envelope: {
        sourceNumber: '+33600000002',
        timestamp: 5,
        dataMessage: {
          timestamp: 5,
          message: null,
          groupInfo: { groupId: 'R0lG', groupName: 'Trip', revision: 2, type: 'UPDATE' },
        },
      },
      account: '+33600000001',
    }
    expect(parseReceivePayload(JSON.stringify(data), '+33600000001')).toEqual({
      type: 'group-update',
      groupId: 'R0lG',
      sourceNumber: '+33600000002',
    })
    const sync = {
      envelope: {
        sourceNumber: '+33600000001',
        timestamp: 6,
        syncMessage: { sentMessage: { timestamp: 6, message: null, groupInfo: { groupId: 'R0lG', type: 'UPDATE' } } },
      },
      account: '+33600000001',
    }
    expect(parseReceivePayload(JSON.stringify(sync), '+33600000001')).toMatchObject({
      type: 'group-update',
      groupId: 'R0lG',
    })
    // A DELIVER without a body stays a skip.
    const deliver = {
      envelope: {
        timestamp: 7,
        dataMessage: { timestamp: 7, message: null, groupInfo: { groupId: 'R0lG', type: 'DELIVER' } },
      },
      account: '+33600000001',
    }
    expect(parseReceivePayload(JSON.stringify(deliver), '+33600000001')).toEqual({ type: 'skipped', reason: 'no-body' })
  })
})

describe('Note to Self from another device of the account', () => {
  const ME = '+33600000001'
  const MY_UUID = '11111111-1111-4111-8111-111111111111'
  const sync = (sentMessage: Record<string, unknown>, account = ME) =>
    JSON.stringify({
      envelope: { sourceNumber: ME, sourceUuid: MY_UUID, sourceDevice: 1, timestamp: 9, syncMessage: { sentMessage } },
      account,
    })

  it('reads a sync sentMessage with no group whose destination is the account as a note-to-self', () => {
    const data = sync({
      destination: ME,
      destinationNumber: ME,
      destinationUuid: MY_UUID,
      timestamp: 8,
      message: 'accept 1',
    })
    expect(parseReceivePayload(data, ME)).toEqual({
      type: 'note-to-self',
      body: 'accept 1',
      timestamp: 8,
      sourceDevice: 1,
    })
    // Named by uuid alone, and on a one-account daemon (no account given to the parser).
    expect(
      parseReceivePayload(sync({ destinationUuid: MY_UUID, timestamp: 8, message: 'x' }), undefined),
    ).toMatchObject({
      type: 'note-to-self',
      body: 'x',
    })
  })

  it('keeps a 1:1 message the account sent to someone else, and incoming 1:1 messages, as skips', () => {
    const toBob = sync({ destination: '+33600000002', destinationNumber: '+33600000002', timestamp: 8, message: 'hi' })
    expect(parseReceivePayload(toBob, ME)).toEqual({ type: 'skipped', reason: 'not-group' })
    const incoming = JSON.stringify({
      envelope: {
        sourceNumber: ME,
        sourceUuid: MY_UUID,
        timestamp: 9,
        dataMessage: { timestamp: 9, message: 'accept 1' },
      },
      account: ME,
    })
    expect(parseReceivePayload(incoming, ME)).toEqual({ type: 'skipped', reason: 'not-group' })
    // A sync copy without a destination is no Note to Self.
    expect(parseReceivePayload(sync({ timestamp: 8, message: 'accept 1' }), ME)).toEqual({
      type: 'skipped',
      reason: 'not-group',
    })
  })

  it('reads a group sync message as a group message even when it names a destination', () => {
    const data = sync({ destination: ME, timestamp: 8, message: 'x', groupInfo: { groupId: 'R0lG', type: 'DELIVER' } })
    expect(parseReceivePayload(data, ME)).toMatchObject({ type: 'message', groupId: 'R0lG', origin: 'sync' })
  })
})
