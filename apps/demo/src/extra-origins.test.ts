import { describe, expect, test } from 'vitest'
import { parseExtraOrigins } from './extra-origins.ts'

describe('extra page origins for npm start', () => {
  test('reads a comma-separated list, spaces and a trailing slash allowed', () => {
    expect(parseExtraOrigins(' http://127.0.0.1:3000, https://app.example/ ,')).toEqual([
      'http://127.0.0.1:3000',
      'https://app.example',
    ])
  })

  test('unset or empty: none', () => {
    expect(parseExtraOrigins(undefined)).toEqual([])
    expect(parseExtraOrigins('  ')).toEqual([])
  })

  test('refuses what is not a page origin, naming it', () => {
    expect(() => parseExtraOrigins('nonsense')).toThrow(expect.objectContaining({ code: 'DEMO_BAD_ORIGIN' }))
    for (const bad of ['127.0.0.1:3000', 'ws://127.0.0.1:3000', 'http://127.0.0.1:3000/app', 'nonsense'])
      expect(() => parseExtraOrigins(bad)).toThrow(
        `E2E_COL_ALLOWED_ORIGINS: ${JSON.stringify(bad)} is not a page origin`,
      )
  })
})
