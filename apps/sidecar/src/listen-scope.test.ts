import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.ts'
import { listenProblem, listenWarning, peerMayAsk } from './listen-scope.ts'

const env = (extra: Record<string, string>) => ({
  SIGNAL_CLI_URL: 'http://127.0.0.1:9',
  E2E_COL_SIGNAL_BODY_MAX_BYTES: '600',
  E2E_COL_DATA_DIR: '/tmp/e2e-col-listen-scope',
  ...extra,
})
const req = (peer: string, headers: Record<string, string>) =>
  ({ socket: { remoteAddress: peer }, headers }) as unknown as IncomingMessage

describe('listening beyond loopback', () => {
  it('is refused in the configuration unless E2E_COL_ALLOW_NON_LOOPBACK=1 is set', () => {
    for (const listen of ['0.0.0.0:7600', '192.0.2.2:7600', '[::]:7600']) {
      expect(() => loadConfig(env({ E2E_COL_LISTEN: listen }))).toThrow(
        /not a loopback address.*ALLOW_NON_LOOPBACK=1.*at E2E_COL_LISTEN/s,
      )
      expect(loadConfig(env({ E2E_COL_LISTEN: listen, E2E_COL_ALLOW_NON_LOOPBACK: '1' })).listen.port).toBe(7600)
    }
    for (const listen of ['127.0.0.1:7600', '127.8.0.1:7600', '[::1]:7600', 'localhost:7600'])
      expect(loadConfig(env({ E2E_COL_LISTEN: listen })).listen.port).toBe(7600)
  })

  it('warns only beyond loopback', () => {
    expect(listenProblem('127.0.0.1', false)).toBeUndefined()
    expect(listenWarning('127.0.0.1')).toBeUndefined()
    expect(listenWarning('0.0.0.0')).toMatch(/beyond loopback on 0\.0\.0\.0/)
  })
})

describe('peerMayAsk', () => {
  it('lets a loopback peer through whatever it names (the Host and Origin checks come next)', () => {
    expect(peerMayAsk(req('127.0.0.1', { host: '127.0.0.1:7600' }))).toBe(true)
    expect(peerMayAsk(req('::ffff:127.0.0.1', { host: 'evil.example' }))).toBe(true)
    expect(peerMayAsk(req('::1', {}))).toBe(true)
  })

  it('refuses a peer from another host that names a loopback host, or no host', () => {
    expect(peerMayAsk(req('192.0.2.9', { host: '127.0.0.1:7600' }))).toBe(false)
    expect(peerMayAsk(req('::ffff:192.0.2.9', { host: 'localhost:7600' }))).toBe(false)
    expect(peerMayAsk(req('fd00::9', { host: '[::1]:7600' }))).toBe(false)
    expect(peerMayAsk(req('192.0.2.9', {}))).toBe(false)
    expect(peerMayAsk(req('192.0.2.9', { host: '192.0.2.2:7600', origin: 'http://127.0.0.1:5173' }))).toBe(false)
    expect(peerMayAsk(req('192.0.2.9', { host: '192.0.2.2:7600' }))).toBe(true)
    expect(peerMayAsk(req('192.0.2.9', { host: '192.0.2.2:7600', origin: 'http://192.0.2.2:5173' }))).toBe(true)
  })
})
