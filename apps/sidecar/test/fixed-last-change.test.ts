/**
 * A fixed document (E2E_COL_DOCUMENTS) tells its last change like any other: the home page said
 * "no changes yet" on a document full of edits, because only documents made or accepted at run
 * time had their changes noted; and after a restart it said so again until the next edit, because a
 * fixed document has no stored row to keep the time in.
 */
import { describe, expect, it } from 'vitest'
import { call } from './docs-api.ts'
import { A, connect, envelope, isMessage, poll, sidecar, startPair, tempDataDir } from './harness.ts'

describe('the last change of a fixed document', () => {
  it('is null before any edit, set on both sides once one is carried, and kept across a restart', async () => {
    const dataDir = tempDataDir()
    const { a, b, docId, envFor } = await startPair({ a: { E2E_COL_DATA_DIR: dataDir } })
    const lastChange = async (s: { port: number }): Promise<number | null> =>
      ((await call(s, 'GET', '/v1/docs')).json.documents as { docId: string; lastChange: number | null }[]).find(
        (d) => d.docId === docId,
      )?.lastChange ?? null
    expect(await lastChange(a)).toBeNull()

    const [wa, wb] = await Promise.all([connect(a, docId), connect(b, docId)])
    const edit = envelope(docId, wa.senderId, 40)
    wa.send(edit)
    await wb.waitFor(isMessage(edit.messageId), 10_000)
    await poll(async () => (await lastChange(a)) !== null, "the writer's last change")
    await poll(async () => (await lastChange(b)) !== null, "the reader's last change")

    const before = await lastChange(a)
    await a.close()
    const restarted = await sidecar(envFor(A, { E2E_COL_DATA_DIR: dataDir }))
    expect(await lastChange(restarted)).toBe(before)
  }, 30_000)
})
