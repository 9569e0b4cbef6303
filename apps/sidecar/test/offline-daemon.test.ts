/**
 * The sidecar against the real signal-cli 0.13.19 holding two registered accounts without the
 * Signal network (`@e2e-col/contract-tests` fixture, one daemon for the file): the start-up checks
 * and the membership check read the real answers, the events stream opens (0.13.x sends its
 * headers with the first keep-alive, 15 s), and a change that cannot reach Signal is saved by the
 * sidecar (ack), its page is told "unreachable", no socket is closed and the daemon is asked at the
 * probe pace (E2E_COL_OFFLINE_PROBE_MAX_MS = 1 s here: the bound of a 60 s default, compressed).
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { offlineAccountsSupport, startOfflineAccountsDaemon, type OfflineAccountsDaemon } from '@e2e-col/contract-tests'
import { createHttpSignalBackend, SignalRpcError } from '@e2e-col/signal-cli'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SidecarError } from '../src/errors.ts'
import { loadConfig, startSidecar, type RunningSidecar } from '../src/index.ts'
import { decodeDeliveryNote } from '@e2e-col/protocol'
import { connect, envelope, isAck, metricValue } from './harness.ts'

const PROBE_MAX_MS = 1000

const support = offlineAccountsSupport(process.env)
if (!support.available) console.log(`[sidecar] offline real signal-cli: skipped, ${support.reason}`)

describe.skipIf(!support.available)('the sidecar against an offline real signal-cli 0.13.19', () => {
  let daemon: OfflineAccountsDaemon
  const dirs: string[] = []
  const docId = randomUUID()

  beforeAll(async () => {
    daemon = await startOfflineAccountsDaemon()
  }, 240_000)
  afterAll(async () => {
    await daemon?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }, 30_000)

  function env(extra: Record<string, string>): Record<string, string> {
    const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-offline-replica-'))
    dirs.push(dataDir)
    return {
      SIGNAL_CLI_URL: daemon.url,
      SIGNAL_CLI_ACCOUNT: daemon.accounts.a,
      E2E_COL_DOCUMENTS: `${docId}=${daemon.groupId}`,
      E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
      E2E_COL_LISTEN: '127.0.0.1:0',
      E2E_COL_SEND_ATTEMPTS: '3',
      E2E_COL_RETRY_BASE_MS: '10',
      E2E_COL_RETRY_MAX_MS: '40',
      E2E_COL_RPC_TIMEOUT_MS: '20000',
      E2E_COL_SHUTDOWN_FLUSH_MS: '500',
      E2E_COL_LOG_LEVEL: 'silent',
      E2E_COL_DATA_DIR: dataDir,
      E2E_COL_SYNC_ON_START: '0',
      ...extra,
    }
  }

  async function refusal(extra: Record<string, string>): Promise<SidecarError> {
    const error = await startSidecar(loadConfig(env(extra))).then(
      async (s) => {
        await s.close()
        throw new Error('the sidecar started')
      },
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(SidecarError)
    return error as SidecarError
  }

  it('refuses a document mapped to a group the account left (the real listGroups says isMember:false)', async () => {
    const error = await refusal({ E2E_COL_DOCUMENTS: `${docId}=${daemon.formerGroupId}` })
    expect(error.code).toBe('SIDECAR_GROUPS_MISSING')
  }, 60_000)

  it('refuses an account the daemon does not hold, and a two-account daemon without SIGNAL_CLI_ACCOUNT', async () => {
    expect((await refusal({ SIGNAL_CLI_ACCOUNT: '+15550009999' })).code).toBe('SIDECAR_ACCOUNT_INVALID')
    const unset = env({})
    delete unset['SIGNAL_CLI_ACCOUNT']
    const error = await startSidecar(loadConfig(unset)).then(
      () => undefined,
      (e: unknown) => e as SidecarError,
    )
    expect(error?.code).toBe('SIDECAR_ACCOUNT_INVALID')
    expect(error?.message).toMatch(/serves 2 accounts/)
  }, 60_000)

  it('the backend reads the real answers: version, accounts, the group listing; a group send is -32603', async () => {
    const backend = createHttpSignalBackend({
      url: daemon.url,
      account: daemon.accounts.a,
      timeoutMs: 20_000,
      streamIdleMs: 40_000,
    })
    try {
      await backend.check()
      expect(await backend.version()).toBe('0.13.19')
      const unscoped = createHttpSignalBackend({
        url: daemon.url,
        account: undefined,
        timeoutMs: 20_000,
        streamIdleMs: 40_000,
      })
      expect(new Set(await unscoped.listAccounts().finally(() => unscoped.close()))).toEqual(
        new Set([daemon.accounts.a, daemon.accounts.b]),
      )
      const groups = await backend.listGroups()
      expect(groups.find((g) => g.id === daemon.groupId)?.isMember).toBe(true)
      expect(groups.find((g) => g.id === daemon.formerGroupId)?.isMember).toBe(false)
      const failure = await backend.sendGroupMessage(daemon.groupId, 'offline').then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(failure).toBeInstanceOf(SignalRpcError)
      expect((failure as SignalRpcError).rpcCode).toBe(-32603)
    } finally {
      await backend.close()
    }
  }, 60_000)

  describe('started', () => {
    let sidecar: RunningSidecar
    beforeAll(async () => {
      // Resolves only after every start-up check passed and the events stream answered 200.
      sidecar = await startSidecar(loadConfig(env({ E2E_COL_OFFLINE_PROBE_MAX_MS: String(PROBE_MAX_MS) })))
    }, 90_000)
    afterAll(async () => {
      await sidecar?.close()
    }, 30_000)

    it('is healthy: the daemon answers its check and the events stream is up', async () => {
      const res = await fetch(`${sidecar.url}/healthz`)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({
        ready: true,
        daemonReachable: true,
        eventsStreamUp: true,
        signal: { state: 'reachable', since: null, unsentEnvelopes: 0 },
        account: { linked: true },
      })
    }, 30_000)

    it('a change that cannot reach Signal is saved by the sidecar, the page says "unreachable", no socket closes, the daemon is asked at the probe pace', async () => {
      const client = await connect(sidecar, docId)
      let closed = false
      void client.closed.then(() => (closed = true))
      const first = envelope(docId, client.senderId)
      client.send(first)
      await client.waitFor(isAck(first.messageId), 10_000)
      await client.waitFor(
        (e) => e.kind === 'delivery' && decodeDeliveryNote(e.payload)?.signal === 'unreachable',
        60_000,
      )
      // Ten more seconds of editing while Signal stays away.
      const probesBefore = await metricValue(sidecar.url, 'e2e_col_signal_probes_total')
      const started = Date.now()
      for (let i = 0; i < 10; i++) {
        const m = envelope(docId, client.senderId)
        client.send(m)
        await client.waitFor(isAck(m.messageId), 10_000)
        await new Promise((r) => setTimeout(r, 1000))
      }
      const windowMs = Date.now() - started
      const probes = (await metricValue(sidecar.url, 'e2e_col_signal_probes_total')) - probesBefore
      // One probe at a time, at least half the bound apart, plus the one in flight.
      expect(probes).toBeLessThanOrEqual(Math.ceil(windowMs / (PROBE_MAX_MS / 2)) + 1)
      expect(closed).toBe(false)
      expect(client.received.filter((e) => e.kind === 'error')).toEqual([])
      const health = (await (await fetch(`${sidecar.url}/healthz`)).json()) as {
        signal: { state: string; unsentEnvelopes: number }
      }
      expect(health.signal).toMatchObject({ state: 'unreachable', unsentEnvelopes: 11 })
      const note = client.received
        .filter((e) => e.kind === 'delivery')
        .map((e) => decodeDeliveryNote(e.payload))
        .at(-1)
      expect(note).toMatchObject({ signal: 'unreachable', unsent: 11, sent: [] })
    }, 120_000)
  })
})
