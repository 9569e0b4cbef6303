import { describe, expect, it } from 'vitest'
import { isHostAllowed } from './host-check.ts'

describe('isHostAllowed', () => {
  it('accepts the loopback names and the bind host, case-insensitively, with or without the bound port', () => {
    for (const host of ['127.0.0.1', '127.0.0.1:8080', 'localhost', 'LocalHost:8080', '[::1]:8080', '[::1]']) {
      expect(isHostAllowed(host, '127.0.0.1', 8080), host).toBe(true)
    }
    expect(isHostAllowed('sidecar.internal:8080', 'sidecar.internal', 8080)).toBe(true)
  })

  it('refuses foreign names, another port and a missing header', () => {
    for (const host of ['evil.example', 'evil.example:8080', '127.0.0.1:8081', 'localhost:80', '', undefined]) {
      expect(isHostAllowed(host, '127.0.0.1', 8080), String(host)).toBe(false)
    }
  })

  it('checks nothing when bound to a wildcard address (v0.14.5)', () => {
    expect(isHostAllowed('evil.example', '0.0.0.0', 8080)).toBe(true)
    expect(isHostAllowed(undefined, '::', 8080)).toBe(true)
  })
})
