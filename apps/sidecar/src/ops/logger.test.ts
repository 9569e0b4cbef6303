import { describe, expect, it } from 'vitest'
import { SignalRpcError } from '@e2e-col/signal-cli'
import { captureLogs } from './log-fixture.ts'

const capture = () => captureLogs('info')

describe('logs', () => {
  it('mask phone numbers in messages, fields and errors', () => {
    const { logger, text } = capture()
    logger.info({ account: '+33612345678' }, 'sending as +33612345678')
    logger.warn({ err: new SignalRpcError(-1, 'The user +447700900123 is not registered.') }, 'send failed')
    expect(text()).not.toMatch(/\+33612345678|\+447700900123/)
    expect(text()).toContain('+33…78')
    expect(text()).toContain('+44…23')
  })

  it('never carry bodies, payloads or tokens', () => {
    const { logger, text } = capture()
    logger.info(
      {
        body: 'e2e-col:v1:SECRETBODY',
        payload: 'SECRETPAYLOAD',
        token: 'SECRETTOKEN',
        nested: { body: 'SECRETNESTED' },
      },
      'x',
    )
    expect(text()).not.toMatch(/SECRET/)
  })
})
