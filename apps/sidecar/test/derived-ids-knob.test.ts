/**
 * `E2E_COL_DERIVED_CLIENT_IDS=0` (the knob `npm run bench` measures derived ids with): the pages of
 * that sidecar are not told their author tag, so they keep Yjs's own ids; on by default.
 */
import { decodeDeliveryNote, isAuthorTag } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import { connect, startPair } from './harness.ts'

describe('the derived client id knob', () => {
  it("tells pages their account's tag by default, and not with E2E_COL_DERIVED_CLIENT_IDS=0", async () => {
    const p = await startPair({ a: { E2E_COL_DERIVED_CLIENT_IDS: '0' } })
    const [atA, atB] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    const [noteA, noteB] = await Promise.all(
      [atA, atB].map(async (c) => decodeDeliveryNote((await c.waitFor((e) => e.kind === 'delivery')).payload)),
    )
    expect(noteA).toBeDefined()
    expect(noteA).not.toHaveProperty('author')
    expect(isAuthorTag(noteB?.author)).toBe(true)
  })
})
