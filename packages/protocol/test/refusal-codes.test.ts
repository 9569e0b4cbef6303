/** Every refusal code is part of the contract: a row in one of the refusal tables of docs/sidecar.md (§4.7, §4.9) (code, meaning, strike). */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { REFUSAL_CODES } from '../src/index.ts'

const contract = readFileSync(new URL('../../../docs/sidecar.md', import.meta.url), 'utf8')
const documented = [...contract.matchAll(/^\| `(SIDECAR_[A-Z_]+)` \| [^|]+ \| (?:yes|no)\b/gm)].map((m) => m[1])

describe('refusal codes', () => {
  it.each(REFUSAL_CODES)('%s has a row in a refusal table of the contract', (code) => {
    expect(documented).toContain(code)
  })

  it('the contract lists no refusal code the package does not have', () => {
    expect(new Set(documented)).toEqual(new Set(REFUSAL_CODES))
  })
})
