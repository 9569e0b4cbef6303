import { describe, expect, it } from 'vitest'
import { marker } from './marker.ts'

describe('the redaction marker', () => {
  it('names the kind', () => {
    expect(marker('github')).toBe('[REDACTED:github]')
  })

  it('turns every character outside [a-z0-9-] into a dash, so no data rides in a kind', () => {
    expect(marker('a b/c:d]e')).toBe('[REDACTED:a-b-c-d-e]')
  })

  it('keeps at most 48 characters of the kind', () => {
    expect(marker('k'.repeat(100))).toBe(`[REDACTED:${'k'.repeat(48)}]`)
  })
})
