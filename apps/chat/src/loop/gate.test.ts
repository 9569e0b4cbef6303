import { describe, expect, it } from 'vitest'
import { gate, type GateConfig } from './gate.ts'
import type { InboundMessage } from '../signal/port.ts'

const ACCOUNT = '+15550000001'
const OPERATOR = '+15550000002'
const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

function config(overrides: Partial<GateConfig> = {}): GateConfig {
  return {
    account: ACCOUNT,
    groupId: GROUP,
    operators: new Set([OPERATOR, ACCOUNT]),
    isOwnPost: (t) => t === 999,
    ...overrides,
  }
}

function msg(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    type: 'message',
    account: ACCOUNT,
    origin: 'data',
    sourceNumber: OPERATOR,
    sourceUuid: '22222222-2222-4222-8222-222222222222',
    sourceDevice: 1,
    timestamp: 1788351979717,
    groupId: GROUP,
    body: 'review src/',
    ...overrides,
  }
}

describe('inbound gate', () => {
  it('accepts an operator message in the chat group', () => {
    expect(gate(msg(), config())).toEqual({ accepted: true, sender: OPERATOR, text: 'review src/' })
  })
  it('accepts a message whose payload names no account (a single-account daemon)', () => {
    expect(gate(msg({ account: undefined }), config())).toEqual({
      accepted: true,
      sender: OPERATOR,
      text: 'review src/',
    })
  })
  it('rejects another group', () => {
    expect(gate(msg({ groupId: 'b3RoZXI=' }), config())).toEqual({ accepted: false, reason: 'other-group' })
  })
  it('rejects a message for a group id it does not know', () => {
    expect(gate(msg({ groupId: 'not-a-group-id' }), config())).toEqual({ accepted: false, reason: 'other-group' })
  })
  it('rejects an event for another account of a multi-account daemon', () => {
    expect(gate(msg({ account: '+15559999999' }), config())).toEqual({ accepted: false, reason: 'other-account' })
  })
  it.each(['', '   ', '\n\t'])('rejects an empty body %j', (body) => {
    expect(gate(msg({ body }), config())).toEqual({ accepted: false, reason: 'empty' })
  })
  it('rejects a non-operator member', () => {
    expect(gate(msg({ sourceNumber: '+15550000003' }), config())).toEqual({ accepted: false, reason: 'not-operator' })
  })
  it('rejects a sender whose number is hidden', () => {
    expect(gate(msg({ sourceNumber: undefined }), config())).toEqual({ accepted: false, reason: 'not-operator' })
  })
  it('denies everyone when the operator list is empty', () => {
    expect(gate(msg(), config({ operators: new Set() }))).toEqual({ accepted: false, reason: 'no-operators' })
  })
  it('drops our own posts by their sent timestamp, whatever their text', () => {
    expect(gate(msg({ origin: 'sync', sourceNumber: ACCOUNT, timestamp: 999 }), config())).toEqual({
      accepted: false,
      reason: 'own-post',
    })
  })
  it('accepts a sync copy typed on the primary phone (device 1) of our own account', () => {
    expect(gate(msg({ origin: 'sync', sourceNumber: ACCOUNT, sourceDevice: 1 }), config())).toEqual({
      accepted: true,
      sender: ACCOUNT,
      text: 'review src/',
    })
  })
  it('rejects a sync copy from another linked device', () => {
    expect(gate(msg({ origin: 'sync', sourceNumber: ACCOUNT, sourceDevice: 3 }), config())).toEqual({
      accepted: false,
      reason: 'sync-not-primary-device',
    })
  })
  it('rejects a sync copy claiming another account', () => {
    expect(gate(msg({ origin: 'sync', sourceNumber: OPERATOR }), config())).toEqual({
      accepted: false,
      reason: 'sync-not-own-account',
    })
  })
  it('rejects a sync copy when our own number is not an operator', () => {
    expect(gate(msg({ origin: 'sync', sourceNumber: ACCOUNT }), config({ operators: new Set([OPERATOR]) }))).toEqual({
      accepted: false,
      reason: 'not-operator',
    })
  })
  it('rejects a message without a sent timestamp: it could be our own post', () => {
    expect(gate(msg({ timestamp: undefined }), config())).toEqual({ accepted: false, reason: 'no-timestamp' })
  })
  it('rejects a data message claiming to come from our own number', () => {
    expect(gate(msg({ sourceNumber: ACCOUNT }), config())).toEqual({ accepted: false, reason: 'own-account-data' })
  })
})
