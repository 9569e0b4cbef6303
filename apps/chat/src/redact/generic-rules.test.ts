import { describe, expect, it } from 'vitest'
import { maskGeneric } from './generic-rules.ts'

describe('generic rules', () => {
  it('keeps the quotes around a masked quoted value', () => {
    expect(maskGeneric('password="hunter2hunter2"')).toBe('password="[REDACTED:assignment]"')
    expect(maskGeneric("SECRET_KEY = 'py-secret-value-42'")).toBe("SECRET_KEY = '[REDACTED:assignment]'")
  })

  it('masks an unquoted value without adding quotes', () => {
    expect(maskGeneric('DB_PASSWORD=hunter2hunter2 rest')).toBe('DB_PASSWORD=[REDACTED:assignment] rest')
  })

  it('keeps the flag and masks its value', () => {
    expect(maskGeneric("run --token 'cliTokenValue99' -v")).toBe("run --token '[REDACTED:flag]' -v")
  })
})
