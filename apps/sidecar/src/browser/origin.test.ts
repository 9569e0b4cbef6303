import { describe, expect, it } from 'vitest'
import { isOriginAllowed } from './origin.ts'

describe('WebSocket Origin allowlist', () => {
  it('lets only loopback pages in when the allowlist is empty', () => {
    expect(isOriginAllowed('http://localhost:5173', [])).toBe(true)
    expect(isOriginAllowed('http://127.0.0.1:8080', [])).toBe(true)
    expect(isOriginAllowed('https://[::1]:8443', [])).toBe(true)
    expect(isOriginAllowed('https://evil.example', [])).toBe(false)
    expect(isOriginAllowed('http://localhost.evil.example', [])).toBe(false)
    expect(isOriginAllowed('null', [])).toBe(false)
    expect(isOriginAllowed('file://', [])).toBe(false)
  })
  it('matches listed origins exactly (scheme, host and port)', () => {
    const allowed = ['https://docs.example.org']
    expect(isOriginAllowed('https://docs.example.org', allowed)).toBe(true)
    expect(isOriginAllowed('http://docs.example.org', allowed)).toBe(false)
    expect(isOriginAllowed('https://docs.example.org:444', allowed)).toBe(false)
    expect(isOriginAllowed('http://localhost:5173', allowed)).toBe(false)
  })
  it('lets a non-browser client without Origin in', () => {
    expect(isOriginAllowed(undefined, [])).toBe(true)
  })
})
