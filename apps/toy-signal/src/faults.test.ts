import { describe, expect, it } from 'vitest'
import { createFaults, MAX_FAULT_MESSAGE_CHARS } from './faults.ts'

const noCut = (): void => {}

describe('createFaults', () => {
  it('keeps the network lost until it is switched back on, or reset', () => {
    const { switches, state } = createFaults(true, noCut)
    expect(state.networkLost()).toBe(false)
    switches.setNetworkLoss(true)
    expect([state.networkLost(), state.networkLost()]).toEqual([true, true])
    switches.setNetworkLoss(false)
    expect(state.networkLost()).toBe(false)
    switches.setNetworkLoss(true)
    switches.reset()
    expect(state.networkLost()).toBe(false)
    expect(() => createFaults(false, noCut).switches.setNetworkLoss(true)).toThrow(
      expect.objectContaining({ code: 'TOY_FAULTS_DISABLED' }),
    )
  })

  it('hands out each new switch exactly n times, then nothing', () => {
    const { switches, state } = createFaults(true, noCut)
    switches.identityFailNextSends(2, { mode: 'per-recipient' })
    switches.failNextSendsWith(1, { code: -32603, message: 'boom (X)' })
    switches.failEvents(1)
    expect([
      state.takeIdentityFailure('+15550000001'),
      state.takeIdentityFailure('+15550000001'),
      state.takeIdentityFailure('+15550000001'),
    ]).toEqual(['per-recipient', 'per-recipient', undefined])
    expect([state.takeSendError('+15550000001'), state.takeSendError('+15550000001')]).toEqual([
      { code: -32603, message: 'boom (X)' },
      undefined,
    ])
    expect([state.takeEventsFailure(), state.takeEventsFailure()]).toEqual([{ status: 500 }, undefined])
  })

  it('admits exactly n non-member sends, and reset clears the switch', () => {
    const { switches, state } = createFaults(true, noCut)
    switches.admitNonMemberSends(2)
    expect([state.takeNonMemberSend(), state.takeNonMemberSend(), state.takeNonMemberSend()]).toEqual([
      true,
      true,
      false,
    ])
    switches.admitNonMemberSends(5)
    switches.reset()
    expect(state.takeNonMemberSend()).toBe(false)
  })

  it('defaults identity failures to every recipient and a content-type events failure to status 200', () => {
    const { switches, state } = createFaults(true, noCut)
    switches.identityFailNextSends(1)
    switches.failEvents(1, { contentType: 'text/plain' })
    expect(state.takeIdentityFailure('+15550000001')).toBe('all-failed')
    expect(state.takeEventsFailure()).toEqual({ status: 200, contentType: 'text/plain' })
  })

  it('limits identity failures to the sends of one account when asked, others pass', () => {
    const { switches, state } = createFaults(true, noCut)
    switches.identityFailNextSends(1, { from: '+15550000002' })
    expect(state.takeIdentityFailure('+15550000001')).toBeUndefined()
    expect(state.takeIdentityFailure('+15550000002')).toBe('all-failed')
    expect(state.takeIdentityFailure('+15550000002')).toBeUndefined()
  })

  it('limits send errors to the sends of one account when asked, others go through', () => {
    const { switches, state } = createFaults(true, noCut)
    switches.failNextSendsWith(1, { code: -1, message: 'x' }, { from: '+15550000002' })
    expect(state.takeSendError('+15550000001')).toBeUndefined()
    expect(state.takeSendError('+15550000002')).toEqual({ code: -1, message: 'x' })
    expect(state.takeSendError('+15550000002')).toBeUndefined()
  })

  it('reset clears the new switches too', () => {
    const { switches, state } = createFaults(true, noCut)
    switches.identityFailNextSends(3)
    switches.failNextSendsWith(3, { code: -1, message: 'x' })
    switches.failEvents(3, { status: 503 })
    switches.reset()
    expect([
      state.takeIdentityFailure('+15550000001'),
      state.takeSendError('+15550000001'),
      state.takeEventsFailure(),
    ]).toEqual([undefined, undefined, undefined])
  })

  it('rejects bad arguments with TOY_CONFIG_INVALID and leaves the switch as it was', () => {
    const { switches, state } = createFaults(true, noCut)
    const invalid = expect.objectContaining({ code: 'TOY_CONFIG_INVALID' })
    expect(() => switches.failNextSendsWith(1, { code: 1.5, message: 'x' })).toThrow(invalid)
    expect(() => switches.failNextSendsWith(1, { code: -1, message: 'x'.repeat(MAX_FAULT_MESSAGE_CHARS + 1) })).toThrow(
      invalid,
    )
    expect(() => switches.failEvents(1, { status: 99 })).toThrow(invalid)
    expect(() => switches.failEvents(1, { contentType: 'text/html\r\nx-injected: 1' })).toThrow(invalid)
    expect(() => switches.identityFailNextSends(-1)).toThrow(invalid)
    expect([
      state.takeSendError('+15550000001'),
      state.takeEventsFailure(),
      state.takeIdentityFailure('+15550000001'),
    ]).toEqual([undefined, undefined, undefined])
  })

  it('refuses every new switch when faults are off', () => {
    const { switches } = createFaults(false, noCut)
    const disabled = expect.objectContaining({ code: 'TOY_FAULTS_DISABLED' })
    expect(() => switches.identityFailNextSends(1)).toThrow(disabled)
    expect(() => switches.failNextSendsWith(1, { code: -1, message: 'x' })).toThrow(disabled)
    expect(() => switches.failEvents(1)).toThrow(disabled)
  })
})
