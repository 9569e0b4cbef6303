import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openSidecarStore } from '../phases/store.ts'
import { tempStoreDir } from '../replica/store-fixture.ts'
import { STORE_FILE } from '../replica/store.ts'
import { MAX_TOKEN_DOCS, TokenLimit } from './agent-tokens.ts'

const DOC = '11111111-1111-4111-8111-111111111111'

describe("the review feature's agent tokens", () => {
  it('finds a minted token across a restart; the store file never holds the token itself', () => {
    const dir = tempStoreDir('tokens')
    const store = openSidecarStore(dir)
    const token = store.agentTokens.mint({ name: 'Claude', docIds: [DOC] }, 1)
    expect(token).toMatch(/^e2ecol_agent_[A-Za-z0-9_-]{43}$/)
    store.close()
    const bytes = readFileSync(join(dir, STORE_FILE))
    expect(bytes.includes(Buffer.from(token.slice('e2ecol_agent_'.length)))).toBe(false)
    const again = openSidecarStore(dir)
    expect(again.agentTokens.find(token)).toEqual({ name: 'Claude', docIds: [DOC] })
    expect(again.agentTokens.find(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined()
    expect(again.agentTokens.find('not a token')).toBeUndefined()
    again.close()
  })

  it('refuses a name past the label bound, no documents, or more than the bound of documents', () => {
    const store = openSidecarStore(tempStoreDir('tokens'))
    expect(() => store.agentTokens.mint({ name: 'x'.repeat(65), docIds: [DOC] }, 1)).toThrow(TokenLimit)
    expect(() => store.agentTokens.mint({ name: 'Claude', docIds: [] }, 1)).toThrow(TokenLimit)
    const many = Array.from(
      { length: MAX_TOKEN_DOCS + 1 },
      (_, i) => `${DOC.slice(0, -2)}${String(i).padStart(2, '0')}`,
    )
    expect(() => store.agentTokens.mint({ name: 'Claude', docIds: many }, 1)).toThrow(TokenLimit)
    expect(store.agentTokens.mint({ name: 'x'.repeat(64), docIds: many.slice(1) }, 1)).toMatch(/^e2ecol_agent_/)
    store.close()
  })
})
