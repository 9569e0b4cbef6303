/**
 * The documents API against the real signal-cli 0.13.19 with two registered accounts and no Signal
 * network (`@e2e-col/contract-tests` fixture): what the real daemon answers from its local store
 * (groups, members, contacts) reaches the page as documents and people, and a document that cannot
 * be created (creation needs Signal) leaves nothing behind.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { offlineAccountsSupport, startOfflineAccountsDaemon, type OfflineAccountsDaemon } from '@e2e-col/contract-tests'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig, startSidecar, type RunningSidecar } from '../src/index.ts'
import { call } from './docs-api.ts'

const support = offlineAccountsSupport(process.env)
if (!support.available) console.log(`[sidecar] documents on an offline real signal-cli: skipped, ${support.reason}`)

describe.skipIf(!support.available)('documents on an offline real signal-cli 0.13.19', () => {
  let daemon: OfflineAccountsDaemon
  let sidecar: RunningSidecar
  let dataDir: string

  beforeAll(async () => {
    daemon = await startOfflineAccountsDaemon()
    dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-offline-docs-'))
    sidecar = await startSidecar(
      loadConfig({
        SIGNAL_CLI_URL: daemon.url,
        SIGNAL_CLI_ACCOUNT: daemon.accounts.a,
        E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
        E2E_COL_LISTEN: '127.0.0.1:0',
        E2E_COL_RPC_TIMEOUT_MS: '30000',
        E2E_COL_SHUTDOWN_FLUSH_MS: '200',
        E2E_COL_LOG_LEVEL: 'silent',
        E2E_COL_DATA_DIR: dataDir,
        E2E_COL_SYNC_ON_START: '0',
      }),
    )
  }, 240_000)
  afterAll(async () => {
    await sidecar?.close()
    await daemon?.stop()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  }, 30_000)

  it('lists no documents and no invitations for groups not made for e2e-col, and the people the account knows', async () => {
    const docs = await call(sidecar, 'GET', '/v1/docs')
    expect([docs.status, docs.json.you, docs.json.documents, docs.json.membersFrom]).toEqual([
      200,
      daemon.accounts.a,
      [],
      'daemon',
    ])
    // The fixture's groups carry no e2e-col tag: nothing is offered.
    expect((await call(sidecar, 'GET', '/v1/invites')).json).toEqual({ invites: [] })
    const contacts = await call(sidecar, 'GET', '/v1/contacts')
    expect(contacts.status).toBe(200)
    expect(contacts.json.contacts.map((c: { number: string }) => c.number)).toContain(daemon.accounts.b)
    expect(contacts.json.contacts.map((c: { number: string }) => c.number)).not.toContain(daemon.accounts.a)
  }, 60_000)

  it('a document that cannot be created without Signal is a 502 naming the step, and nothing is kept', async () => {
    const made = await call(sidecar, 'POST', '/v1/docs', { body: { title: 'Trip plan', members: [daemon.accounts.b] } })
    expect([made.status, made.json.error.code]).toEqual([502, 'DOCS_DAEMON_FAILED'])
    expect(made.json.error.message).toContain('create the group')
    expect(made.json.error.message).not.toContain(daemon.accounts.b)
    expect((await call(sidecar, 'GET', '/v1/docs')).json.documents).toEqual([])
  }, 90_000)
})
