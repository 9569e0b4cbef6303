import type { ClientStatus } from '@e2e-col/client'
import { describe, expect, test } from 'vitest'
import { adviceText, connectionText, pendingText, statusText } from './status-text.ts'

const base: ClientStatus = {
  connection: 'connected',
  pending: 0,
  delivery: { signal: 'reachable', since: null, unsent: 0, reason: null, refused: 0 },
  weakest: 'group',
  lastAckAt: null,
  loaded: true,
  synced: true,
}
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16)
const at1042 = Date.UTC(2026, 11, 1, 10, 42)

describe('status words on the page', () => {
  test('pending count reads as saved / 1 change / N changes', () => {
    expect(pendingText(0)).toBe('all changes saved')
    expect(pendingText(1)).toBe('1 change waiting')
    expect(pendingText(3)).toBe('3 changes waiting')
  })

  test('connection states have distinct labels', () => {
    expect(new Set((['connecting', 'connected', 'offline'] as const).map(connectionText)).size).toBe(3)
    expect(connectionText('offline')).toBe('offline')
  })

  test('the sentence names the weakest state: saved in this browser, on this computer but unsent, or all saved', () => {
    expect(statusText(base, hhmm)).toBe('all changes saved')
    expect(statusText({ ...base, connection: 'offline', pending: 2, weakest: 'browser' }, hhmm)).toBe(
      '2 changes saved in this browser, not yet at e2e-col on this computer: it does not answer',
    )
    const away = {
      ...base,
      weakest: 'sidecar' as const,
      delivery: { ...base.delivery, signal: 'unreachable' as const, since: at1042, unsent: 3 },
    }
    expect(statusText(away, hhmm)).toBe(
      '3 changes saved on this computer, not yet sent: Signal is unreachable since 10:42',
    )
    expect(statusText({ ...away, delivery: { ...away.delivery, signal: 'daemon-down' } }, hhmm)).toBe(
      '3 changes saved on this computer, not yet sent: signal-cli is not running since 10:42',
    )
    expect(statusText({ ...base, delivery: { ...away.delivery, unsent: 0 } }, hhmm)).toBe(
      'all changes saved; new ones are kept until Signal is reachable again',
    )
  })

  test('a change Signal refused says so, why, and what to do', () => {
    const refused = {
      ...base,
      delivery: {
        signal: 'refused' as const,
        since: at1042,
        unsent: 0,
        reason: 'signal-cli error -4: Untrusted identity',
        refused: 1,
      },
    }
    const text = statusText(refused, hhmm)
    expect(text).toContain('Signal refused a change (signal-cli error -4: Untrusted identity)')
    expect(text).toContain('safety numbers')
  })
})

describe('advice while the sidecar is out of reach', () => {
  test('names e2e-col on this computer (never "sidecar") and the command to start it when the browser is online but e2e-col does not answer', () => {
    const advice = adviceText('offline', true)
    expect(advice).toMatch(/^e2e-col is not running on this computer/)
    expect(advice).toContain('Start it again: `npm start`')
    expect(advice).not.toMatch(/sidecar/i)
    expect(advice).toContain('`npm start`')
    expect(advice).toContain('`e2e-col up`')
    expect(advice).toContain('kept in this browser')
  })

  test('blames the network, not the sidecar, when the browser itself is offline', () => {
    expect(adviceText('offline', false)).toMatch(/^This browser is offline\./)
  })

  test('clears once connected and keeps what it said while a retry is under way', () => {
    expect(adviceText('connected', true)).toBeNull()
    expect(adviceText('connected', false)).toBeNull()
    expect(adviceText('connecting', true)).toBeUndefined()
  })
})
