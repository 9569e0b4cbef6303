/**
 * History keeps its byte bound under churn, measured on a real sidecar process on the toy: a page
 * rewrites the document's 1,200 characters 200 times, each rewrite its own version; the rows the
 * store holds for versions and changes together, summed from the file, stay within
 * `E2E_COL_HISTORY_MAX_BYTES`, and the store's files stay small (before: 4.4 MiB, most of it WAL).
 */
import { randomUUID } from 'node:crypto'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { spawnSidecar } from './child-sidecar.ts'
import { call } from './docs-api.ts'
import { A, baseEnv, poll, startToy, tempDataDir } from './harness.ts'
import { YBrowser } from './ybrowser.ts'

const MAX_BYTES = 64 * 1024
const REWRITES = 200
const CHARS = 1200

/** Sizes of the store's files (the WAL beside it included). */
const filesOf = (dir: string): number =>
  ['replica.sqlite3', 'replica.sqlite3-wal'].reduce((n, f) => {
    try {
      return n + statSync(join(dir, f)).size
    } catch {
      return n
    }
  }, 0)

describe('the history byte bound on a running sidecar', () => {
  it(`${REWRITES} rewrites of ${CHARS} characters: versions and changes together within the bound`, async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const dir = tempDataDir()
    const child = spawnSidecar(
      baseEnv(toy, A, docId, {
        E2E_COL_DATA_DIR: dir,
        E2E_COL_HISTORY_QUIET_MS: '100',
        E2E_COL_HISTORY_MAX_BYTES: String(MAX_BYTES),
        E2E_COL_SIGNAL_BODY_MAX_BYTES: '60000',
        E2E_COL_ALLOW_LONG_BODIES: '1',
      }),
    )
    const url = await child.ready
    const port = Number(new URL(url).port)
    const page = new YBrowser(docId)
    await page.connect(url)
    const newest = async (): Promise<string | undefined> =>
      ((await call({ port }, 'GET', `/v1/docs/${docId}/versions?limit=1`)).json.versions as { id: string }[])[0]?.id
    const text = page.doc.getText('t')
    let seed = 11
    const letter = (): string => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return String.fromCharCode(97 + (seed % 26))
    }
    for (let i = 0; i < REWRITES; i++) {
      const before = await newest()
      page.doc.transact(() => {
        text.delete(0, text.length)
        text.insert(0, Array.from({ length: CHARS }, letter).join(''))
      })
      // Each rewrite becomes a version of its own once the page has gone quiet.
      await poll(async () => (await newest()) !== before, `version ${i + 1}`)
    }

    const db = new Database(join(dir, 'replica.sqlite3'), { readonly: true })
    try {
      const sum = (sql: string): number => Number((db.prepare(sql).get(docId) as { n: number | null }).n ?? 0)
      const versions = sum('SELECT sum(length(state)) AS n FROM history_versions WHERE doc_id = ?')
      const changes = sum('SELECT sum(length(data)) AS n FROM history_changes WHERE doc_id = ?')
      expect(versions + changes).toBeLessThanOrEqual(MAX_BYTES)
      expect(sum('SELECT count(*) AS n FROM history_versions WHERE doc_id = ?')).toBeGreaterThan(10)
    } finally {
      db.close()
    }
    // The store file holds little beyond the bound (the document, its update log, free pages given
    // back), and its WAL is cut back to 1 MiB after each checkpoint.
    expect(statSync(join(dir, 'replica.sqlite3')).size).toBeLessThan(512 * 1024)
    expect(filesOf(dir)).toBeLessThan(1.5 * 1024 * 1024)
  }, 120_000)
})
