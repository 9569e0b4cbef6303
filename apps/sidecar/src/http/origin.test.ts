import { describe, expect, it } from 'vitest'
import { isOriginAllowed, REFUSED_ORIGINS_NAMED, refusedOriginReporter } from './origin.ts'

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

describe('naming refused origins in the log', () => {
  it('names each refused origin once, however often its page retries', () => {
    const named: string[] = []
    const refused = refusedOriginReporter((origin) => named.push(origin))
    for (let i = 0; i < 5; i++) refused('http://127.0.0.1:3000')
    refused('http://localhost:4000')
    refused(undefined)
    expect(named).toEqual(['http://127.0.0.1:3000', 'http://localhost:4000', ''])
  })

  it('bounds what a page can put in the log: each origin cut to 200 characters, at most 32 origins', () => {
    const named: string[] = []
    const refused = refusedOriginReporter((origin) => named.push(origin))
    refused(`http://${'a'.repeat(1000)}`)
    expect(named[0]).toHaveLength(200)
    for (let i = 0; i < 100; i++) refused(`http://127.0.0.1:${i}`)
    expect(named).toHaveLength(REFUSED_ORIGINS_NAMED)
  })
})
