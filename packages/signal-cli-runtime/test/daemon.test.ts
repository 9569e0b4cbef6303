// The daemon process and its supervisor, with a stand-in launcher script (no JVM): readiness,
// the two start failures a person must be told about, restarts with backoff, and a clean stop.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import {
  freePort,
  openRotatingLog,
  RuntimeError,
  startDaemonProcess,
  superviseDaemon,
  type DaemonSpec,
  type SupervisorEvent,
} from '../src/index.ts'

const FAKE = fileURLToPath(new URL('./fake-signal-cli.mjs', import.meta.url))
const dirs: string[] = []
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  delete process.env['FAKE_SIGNAL_CLI']
})

async function spec(): Promise<DaemonSpec & { logPath: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-runtime-'))
  dirs.push(dir)
  const logPath = join(dir, 'daemon.log')
  return {
    launcher: FAKE,
    javaHome: '/nonexistent',
    configDir: join(dir, 'signal-cli'),
    port: await freePort(),
    log: openRotatingLog(logPath),
    readyTimeoutMs: 20_000,
    logPath,
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/api/v1/check`)).status === 200
  } catch {
    return false
  }
}

describe('startDaemonProcess', () => {
  it('passes the HTTP, config-folder and receive-mode flags, waits for /api/v1/check, logs, and stops', async () => {
    const s = await spec()
    const daemon = await startDaemonProcess(s)
    expect(daemon.url).toBe(`http://127.0.0.1:${s.port}`)
    expect(await answers(daemon.url)).toBe(true)
    await daemon.stop()
    expect(await answers(daemon.url)).toBe(false)
    expect(readFileSync(s.logPath, 'utf8')).toContain(
      `--config ${s.configDir} daemon --http 127.0.0.1:${s.port} --receive-mode on-connection`,
    )
  })

  it("runs signal-cli's own receive mode when asked (the contract suite's daemon as it comes)", async () => {
    const s = await spec()
    const daemon = await startDaemonProcess({ ...s, receiveMode: 'on-start' })
    await daemon.stop()
    expect(readFileSync(s.logPath, 'utf8')).toContain(`daemon --http 127.0.0.1:${s.port} --receive-mode on-start`)
  })

  it('names a folder locked by another signal-cli instead of waiting forever', async () => {
    process.env['FAKE_SIGNAL_CLI'] = 'locked'
    const s = await spec()
    const error = await startDaemonProcess(s).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RuntimeError)
    expect((error as RuntimeError).code).toBe('DAEMON_CONFIG_LOCKED')
    expect((error as RuntimeError).message).toContain(s.configDir)
  })

  it('names a taken port', async () => {
    process.env['FAKE_SIGNAL_CLI'] = 'port-taken'
    const error = await startDaemonProcess(await spec()).catch((e: unknown) => e)
    expect((error as RuntimeError).code).toBe('DAEMON_PORT_TAKEN')
  })
})

describe('superviseDaemon', () => {
  it('restarts a daemon that died, on the same port, and reports it', async () => {
    const s = await spec()
    const events: SupervisorEvent[] = []
    const daemon = await superviseDaemon(s, { baseDelayMs: 50, maxDelayMs: 200, onEvent: (e) => events.push(e) })
    cleanups.push(() => daemon.stop())
    await fetch(`${daemon.url}/die`)
    const deadline = Date.now() + 20_000
    while (daemon.restarts() < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(daemon.restarts()).toBe(1)
    expect(await answers(daemon.url)).toBe(true)
    expect(events.map((e) => e.kind)).toEqual(['exited', 'restarted'])
    expect(events[0]).toMatchObject({ kind: 'exited', code: 7 })
    // The supervisor's own lines go into the daemon's log too.
    expect(readFileSync(s.logPath, 'utf8')).toContain('[e2e-col] {"at":')
    await daemon.stop()
    expect(await answers(daemon.url)).toBe(false)
  })
})

describe('openRotatingLog', () => {
  it('rotates past maxBytes and keeps only `keep` old files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'e2e-col-log-'))
    dirs.push(dir)
    const path = join(dir, 'x.log')
    const log = openRotatingLog(path, { maxBytes: 10, keep: 2 })
    for (const line of ['aaaaaaaa\n', 'bbbbbbbb\n', 'cccccccc\n', 'dddddddd\n']) log.write(line)
    expect(readFileSync(path, 'utf8')).toBe('dddddddd\n')
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('cccccccc\n')
    expect(readFileSync(`${path}.2`, 'utf8')).toBe('bbbbbbbb\n')
    expect(() => readFileSync(`${path}.3`)).toThrow()
  })
})
