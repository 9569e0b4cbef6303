import { describe, expect, it } from 'vitest'
import { maskProviderSecrets } from './provider-rules.ts'

describe('provider rules (secretlint recommend preset)', () => {
  it('masks the whole secret even when a rule reports a range that stops short of its end', async () => {
    const out = await maskProviderSecrets('x AWS_SECRET_ACCESS_KEY=El2hpChYgCfrL1spNxnyVmihA+2O76UMFxFkM+R5 y')
    expect(out).toBe('x [REDACTED:aws] y')
  })

  it('names the rule that matched in the marker', async () => {
    expect(await maskProviderSecrets('npm_N0MEQ7wjJJibaZUPgHV7iB3m03nbqnsGpWLu')).toBe('[REDACTED:npm]')
  })

  it('returns text without findings unchanged', async () => {
    expect(await maskProviderSecrets('nothing to see here\n')).toBe('nothing to see here\n')
  })
})
