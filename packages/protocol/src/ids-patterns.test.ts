import { describe, expect, it } from 'vitest'
import { codeOf, freshIds } from '../test/fixtures.ts'
import { newMessageId } from './ids.ts'

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e'
const ID = '00112233445566778899aabbccddeeff'

describe('id patterns', () => {
  it('accept a canonical UUID and refuse each near miss', async () => {
    const { isUuid } = await freshIds()
    expect(isUuid(UUID)).toBe(true)
    for (const bad of [`x${UUID}`, `${UUID}x`, UUID.toUpperCase(), UUID.replaceAll('-', ''), 'g' + UUID.slice(1)]) {
      expect(isUuid(bad)).toBe(false)
    }
    // One group's digit replaced by a dash-free non-hex character, group by group.
    for (const at of [0, 9, 14, 19, 24]) expect(isUuid(`${UUID.slice(0, at)}z${UUID.slice(at + 1)}`)).toBe(false)
    expect(isUuid({ toString: () => UUID })).toBe(false)
  })

  it('accept 32 lowercase hex digits as a message id and refuse each near miss', async () => {
    const { isMessageId } = await freshIds()
    expect(isMessageId(ID)).toBe(true)
    for (const bad of [`x${ID}`, `${ID}0`, `0${ID}`, ID.toUpperCase(), ID.slice(1), 'z'.repeat(32)]) {
      expect(isMessageId(bad)).toBe(false)
    }
    expect(isMessageId({ toString: () => ID })).toBe(false)
  })

  it('say why a short randomBytes is refused', () => {
    let message = ''
    try {
      newMessageId(() => new Uint8Array(15))
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe('randomBytes(16) must return 16 bytes')
    expect(codeOf(() => newMessageId(() => new Uint8Array(15)))).toBe('ProtocolError:PROTO_INVALID_FIELD')
  })
})
