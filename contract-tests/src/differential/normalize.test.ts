import { describe, expect, it } from 'vitest'
import { normalizeAnswer } from './normalize.ts'

const ACI_A = 'ed562611-2a94-4515-9bb1-e3313a0d3a3c'
const names = new Map([[ACI_A, '<aci a>']])

const msg = (m: string) => ({
  error: { code: -32603, message: `Failed to send message: ${m} (UnexpectedErrorException)` },
})

const io = (m: string) => ({ error: { code: -3, message: `Update profile error: ${m}` } })

describe('normalizeAnswer', () => {
  it('names known ACIs and marks unknown ones, so two daemons compare member lists', () => {
    const answer = {
      result: [{ number: '+1', uuid: ACI_A.toUpperCase() }, { uuid: '0b0e5f1c-6d2a-4c36-9a3e-111111111111' }],
    }
    expect(normalizeAnswer('listGroups', answer, names)).toEqual({
      result: [{ number: '+1', uuid: '<aci a>' }, { uuid: '<other uuid>' }],
    })
  })

  it('hides timestamps only under timestamp keys (other numbers are compared)', () => {
    expect(normalizeAnswer('x', { result: { timestamp: 1, lastUpdateTimestamp: 0, size: 3 } }, names)).toEqual({
      result: { timestamp: '<timestamp>', lastUpdateTimestamp: '<timestamp>', size: 3 },
    })
  })

  it('sorts listAccounts and no other list', () => {
    const two = [{ number: '+2' }, { number: '+1' }]
    expect(normalizeAnswer('listAccounts', { result: two }, names)).toEqual({
      result: [{ number: '+1' }, { number: '+2' }],
    })
    expect(normalizeAnswer('listContacts', { result: two }, names)).toEqual({ result: two })
  })

  it("treats an offline daemon's socket exceptions as one, keeping the rest of the text", () => {
    const a = normalizeAnswer('send', msg('java.net.SocketException: Closed unexpectedly (IOException)'), names)
    expect(a).toEqual(normalizeAnswer('send', msg('No connection! (IOException)'), names))
    expect(a).toEqual(normalizeAnswer('send', msg('java.io.IOException: Write failed! (IOException)'), names))
    expect(a).not.toEqual(normalizeAnswer('send', msg('Unable to resolve host (IOException)'), names))
  })

  it('also when the message names no class (`Update profile error: Closed unexpectedly`)', () => {
    expect(normalizeAnswer('updateProfile', io('Closed unexpectedly'), names)).toEqual(
      normalizeAnswer('updateProfile', io('No connection!'), names),
    )
    expect(normalizeAnswer('updateProfile', io('Closed unexpectedly'), names)).toEqual(io('<socket error>'))
  })

  it('sets identity keys aside only in the forms signal-cli prints them', () => {
    const real = {
      fingerprint: `05${' ab'.repeat(32)}`,
      safetyNumber: Array.from({ length: 12 }, () => '12345').join(' '),
      scannableSafetyNumber: Buffer.concat([Buffer.from([8, 2, 0x12, 0x22, 0x0a, 0x20]), Buffer.alloc(68)]).toString(
        'base64',
      ),
    }
    expect(normalizeAnswer('listIdentities', { result: [real] }, names)).toEqual({
      result: [
        {
          fingerprint: '<fingerprint>',
          safetyNumber: '<safetyNumber>',
          scannableSafetyNumber: '<scannableSafetyNumber>',
        },
      ],
    })
    const other = {
      fingerprint: 'ab cd',
      safetyNumber: '123',
      scannableSafetyNumber: Buffer.alloc(32).toString('base64'),
    }
    expect(normalizeAnswer('listIdentities', { result: [other] }, names)).toEqual({ result: [other] })
  })

  it('sets aside the random id of a v1 group made during the run, not a 32-byte fixture id', () => {
    const v1 = Buffer.alloc(16, 1).toString('base64')
    const v2 = Buffer.alloc(32, 1).toString('base64')
    expect(normalizeAnswer('listGroups', { result: [{ id: v1 }, { id: v2 }] }, names)).toEqual({
      result: [{ id: '<new v1 group id>' }, { id: v2 }],
    })
  })
})
