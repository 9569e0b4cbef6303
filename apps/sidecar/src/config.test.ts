import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.ts'
import { SidecarError } from './errors.ts'

const DOC = '0190a6c8-1111-4222-8333-444455556666'
const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const valid = { E2E_COL_DOCUMENTS: `${DOC}=${GROUP}`, E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000', HOME: '/home/ada' }

function failure(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env)
  } catch (error) {
    expect(error).toBeInstanceOf(SidecarError)
    expect((error as SidecarError).code).toBe('CONFIG_INVALID')
    return (error as Error).message
  }
  throw new Error('expected CONFIG_INVALID')
}

describe('configuration', () => {
  it('puts the replica under the XDG state folder unless E2E_COL_DATA_DIR says otherwise', () => {
    expect(loadConfig(valid).replica.dataDir).toBe('/home/ada/.local/state/e2e-col')
    expect(loadConfig({ ...valid, XDG_STATE_HOME: '/var/state' }).replica.dataDir).toBe('/var/state/e2e-col')
    expect(loadConfig({ ...valid, E2E_COL_DATA_DIR: '/srv/e2e' }).replica).toMatchObject({
      dataDir: '/srv/e2e',
      syncOnStart: true,
      syncDelayMs: { min: 20, max: 300 },
    })
    expect(failure({ ...valid, E2E_COL_DATA_DIR: 'relative/dir' })).toContain('E2E_COL_DATA_DIR')
    expect(failure({ ...valid, HOME: undefined })).toContain('E2E_COL_DATA_DIR')
  })

  it('reads and announces deflate and attachments by default; none, a subset, or an unknown name', () => {
    const c = loadConfig(valid)
    expect(c.capabilities).toEqual(['deflate', 'attachments'])
    expect(c.attachments).toEqual({
      minBytes: 4096,
      fetchTimeoutMs: 30_000,
      maxFrameBytes: 16 * 1024 * 1024,
      restoreAfterMs: 600_000,
    })
    expect(loadConfig({ ...valid, E2E_COL_ATTACHMENT_RESTORE_MS: '3000' }).attachments.restoreAfterMs).toBe(3000)
    expect(failure({ ...valid, E2E_COL_ATTACHMENT_RESTORE_MS: '50' })).toContain('E2E_COL_ATTACHMENT_RESTORE_MS')
    expect(loadConfig({ ...valid, E2E_COL_CAPABILITIES: 'none' }).capabilities).toEqual([])
    expect(loadConfig({ ...valid, E2E_COL_CAPABILITIES: 'deflate' }).capabilities).toEqual(['deflate'])
    expect(failure({ ...valid, E2E_COL_CAPABILITIES: 'deflate,zstd' })).toContain('unknown capability "zstd"')
  })

  it('applies the documented defaults and freezes the result', () => {
    const c = loadConfig(valid)
    expect(c.signal.url).toBe('http://127.0.0.1:8080')
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 7600 })
    expect(c.send).toMatchObject({ sendsPerSecond: 1, burst: 5 })
    expect(c.documents).toEqual([{ docId: DOC, groupId: GROUP }])
    expect(Object.isFrozen(c) && Object.isFrozen(c.documents[0]) && Object.isFrozen(c.send)).toBe(true)
  })

  it('keeps a quiet document in memory a minute and at most 64 quiet ones by default; 0 turns the minute off', () => {
    expect(loadConfig(valid).replica).toMatchObject({ evictAfterMs: 60_000, maxLoaded: 64 })
    const off = loadConfig({ ...valid, E2E_COL_EVICT_AFTER_MS: '0', E2E_COL_MAX_LOADED_DOCS: '1' })
    expect(off.replica).toMatchObject({ evictAfterMs: 0, maxLoaded: 1 })
    expect(failure({ ...valid, E2E_COL_MAX_LOADED_DOCS: '0' })).toContain('E2E_COL_MAX_LOADED_DOCS')
    expect(failure({ ...valid, E2E_COL_EVICT_AFTER_MS: '-1' })).toContain('E2E_COL_EVICT_AFTER_MS')
  })

  it('remembers sent ids 30 days and at most the newest 250 000 by default, never fewer than 1000', () => {
    expect(loadConfig(valid).replica).toMatchObject({ sentIdsTtlMs: 30 * 86_400_000, sentIdsMax: 250_000 })
    expect(loadConfig({ ...valid, E2E_COL_SENT_IDS_MAX: '1000' }).replica.sentIdsMax).toBe(1000)
    expect(failure({ ...valid, E2E_COL_SENT_IDS_MAX: '999' })).toContain('E2E_COL_SENT_IDS_MAX')
  })

  it("lets a member's attachment carry a whole document of 16 MiB by default (what a page decodes), never less than a text frame", () => {
    expect(loadConfig(valid).attachments.maxFrameBytes).toBe(16 * 1024 * 1024)
    expect(loadConfig(valid).browser.maxFrameBytes).toBe(2 * 1024 * 1024)
    const raised = {
      ...valid,
      E2E_COL_MAX_FRAME_BYTES: String(24 * 1024 * 1024),
      E2E_COL_ATTACHMENT_MAX_FRAME_BYTES: '4096',
    }
    expect(loadConfig(raised).attachments.maxFrameBytes).toBe(24 * 1024 * 1024)
    expect(failure({ ...valid, E2E_COL_ATTACHMENT_MAX_FRAME_BYTES: String(16 * 1024 * 1024 + 1) })).toContain(
      'E2E_COL_ATTACHMENT_MAX_FRAME_BYTES',
    )
  })

  it('requires the body boundary, naming it; the document map is optional (documents are made at run time)', () => {
    expect(failure({ HOME: '/home/ada' })).toContain('E2E_COL_SIGNAL_BODY_MAX_BYTES')
    const none = loadConfig({ E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000', HOME: '/home/ada' })
    expect(none.documents).toEqual([])
    expect(none.setup).toBe('linked-device')
    expect(loadConfig({ ...valid, E2E_COL_SETUP: 'dedicated-number' }).setup).toBe('dedicated-number')
    expect(failure({ ...valid, E2E_COL_SETUP: 'phone' })).toContain('E2E_COL_SETUP')
  })

  it('refuses a body boundary above 2000 unless long bodies are allowed', () => {
    expect(failure({ ...valid, E2E_COL_SIGNAL_BODY_MAX_BYTES: '2001' })).toContain('E2E_COL_ALLOW_LONG_BODIES')
    expect(
      loadConfig({ ...valid, E2E_COL_SIGNAL_BODY_MAX_BYTES: '4000', E2E_COL_ALLOW_LONG_BODIES: '1' }).maxBodyBytes,
    ).toBe(4000)
  })

  it('refuses a remote daemon unless allowed, and any daemon URL with credentials or a path', () => {
    expect(failure({ ...valid, SIGNAL_CLI_URL: 'http://192.168.1.5:8080' })).toContain('E2E_COL_ALLOW_REMOTE_DAEMON')
    expect(
      loadConfig({ ...valid, SIGNAL_CLI_URL: 'http://192.168.1.5:8080', E2E_COL_ALLOW_REMOTE_DAEMON: '1' }).signal.url,
    ).toBe('http://192.168.1.5:8080')
    expect(failure({ ...valid, SIGNAL_CLI_URL: 'http://user:pw@127.0.0.1:8080' })).toContain('credentials')
    expect(failure({ ...valid, SIGNAL_CLI_URL: 'http://127.0.0.1:8080/api' })).toContain('SIGNAL_CLI_URL')
    expect(failure({ ...valid, SIGNAL_CLI_URL: 'ftp://127.0.0.1' })).toContain('http')
  })

  it('checks the document map: UUID keys, base64 ids, each document and group once', () => {
    expect(failure({ ...valid, E2E_COL_DOCUMENTS: `not-a-uuid=${GROUP}` })).toContain('UUID')
    expect(failure({ ...valid, E2E_COL_DOCUMENTS: `${DOC}=not base64!` })).toContain('base64')
    expect(
      failure({ ...valid, E2E_COL_DOCUMENTS: `${DOC}=${GROUP},0190a6c8-1111-4222-8333-444455556667=${GROUP}` }),
    ).toContain('two documents')
    const two = loadConfig({
      ...valid,
      E2E_COL_DOCUMENTS: `${DOC}=${GROUP}, 0190a6c8-1111-4222-8333-444455556667=AAAAAAAAAAAAAAAAAAAAAA==`,
    })
    expect(two.documents).toHaveLength(2)
  })

  it('checks the account, listen address and allowed origins', () => {
    expect(failure({ ...valid, SIGNAL_CLI_ACCOUNT: '0612345678' })).toContain('SIGNAL_CLI_ACCOUNT')
    expect(failure({ ...valid, E2E_COL_LISTEN: 'localhost' })).toContain('E2E_COL_LISTEN')
    expect(loadConfig({ ...valid, E2E_COL_LISTEN: '[::1]:0' }).listen).toEqual({ host: '::1', port: 0 })
    expect(failure({ ...valid, E2E_COL_ALLOWED_ORIGINS: 'https://a.example/path' })).toContain(
      'E2E_COL_ALLOWED_ORIGINS',
    )
    expect(
      loadConfig({ ...valid, E2E_COL_ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080' }).allowedOrigins,
    ).toEqual(['https://a.example', 'http://b.example:8080'])
  })

  it('never puts a full phone number into an error message', () => {
    expect(failure({ ...valid, SIGNAL_CLI_ACCOUNT: '+3361234567890123456' })).not.toContain('+3361234567890123456')
  })

  it('reads a JSON config file, with the environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'e2e-col-sidecar-'))
    const file = join(dir, 'sidecar.json')
    const { HOME, ...settings } = valid
    writeFileSync(file, JSON.stringify({ ...settings, E2E_COL_LISTEN: '127.0.0.1:7700', E2E_COL_SEND_BURST: 9 }))
    const c = loadConfig({ HOME, E2E_COL_LISTEN: '127.0.0.1:7800' }, { configFile: file })
    expect(c.listen.port).toBe(7800)
    expect(c.send.burst).toBe(9)
    writeFileSync(file, JSON.stringify({ SURPRISE: 1 }))
    expect(() => loadConfig({}, { configFile: file })).toThrow(/unknown setting\(s\) SURPRISE/)
  })
})
