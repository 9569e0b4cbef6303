import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it, onTestFinished } from 'vitest'
import { A, B, baseEnv, startToy, tempDataDir } from './harness.ts'

const BIN = fileURLToPath(new URL('../bin/e2e-col-sidecar.js', import.meta.url))

/** Runs the CLI to completion (a refused start exits by itself). */
function run(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    let stdout = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    onTestFinished(() => void child.kill('SIGKILL'))
    child.on('exit', (code) => resolve({ code, stderr, stdout }))
  })
}

/** A daemon whose check and rpc answer well but whose events endpoint is not an event stream. */
async function daemonWithoutEvents(groupId: string): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url === '/api/v1/check') return void res.writeHead(200).end()
    if (req.url?.startsWith('/api/v1/events') === true)
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>')
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string }
      const result =
        method === 'version'
          ? { version: '0.14.6' }
          : [{ id: groupId, name: 'doc', isMember: true, members: [{ number: A, uuid: randomUUID() }] }]
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** A toy with two groups: `ours` (A and B) and `theirs` (B only: A is not a member). */
async function oursAndTheirs() {
  const toy = await createToySignal({
    accounts: [A, B],
    groups: [
      { name: 'ours', members: [A, B] },
      { name: 'theirs', members: [B] },
    ],
  })
  onTestFinished(() => toy.close())
  return { toy, ours: toy.groups[0]?.id ?? '', theirs: toy.groups[1]?.id ?? '' }
}

describe('startup refuses, with one line and a distinct exit code, before opening any port', () => {
  it('prints every setting with --help', async () => {
    const r = await run({}, ['--help'])
    expect(r.code).toBe(0)
    for (const v of [
      'SIGNAL_CLI_URL',
      'SIGNAL_CLI_ACCOUNT',
      'E2E_COL_DOCUMENTS',
      'E2E_COL_SIGNAL_BODY_MAX_BYTES',
      'E2E_COL_LISTEN',
      'E2E_COL_ALLOWED_ORIGINS',
    ])
      expect(r.stdout).toContain(v)
  })

  it('exits 2 on invalid configuration, naming the variable', async () => {
    const r = await run({ E2E_COL_DOCUMENTS: `${randomUUID()}=AAAA`, E2E_COL_SIGNAL_BODY_MAX_BYTES: '2500' })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('E2E_COL_SIGNAL_BODY_MAX_BYTES')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('exits 3 when the daemon does not answer its check, 8 when the listen address is taken', async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const closedPort = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo
        s.close(() => resolve(port))
      })
    })
    const [unreachable, taken] = await Promise.all([
      run(baseEnv(toy, A, docId, { SIGNAL_CLI_URL: `http://127.0.0.1:${closedPort}` })),
      run(baseEnv(toy, A, docId, { E2E_COL_LISTEN: `127.0.0.1:${toy.port}` })),
    ])
    expect([unreachable.code, taken.code]).toEqual([3, 8])
    expect(unreachable.stderr).toMatch(/check/)
    expect(taken.stderr).toMatch(/cannot listen/)
  })

  it('exits 4 when the version probe fails', async () => {
    const toy = await startToy()
    toy.faults.failNextRpc(1)
    const r = await run(baseEnv(toy, A, randomUUID()))
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/version/)
  })

  it('exits 5 when no account is set and the daemon serves several', async () => {
    const toy = await startToy()
    const r = await run(baseEnv(toy, undefined, randomUUID()))
    expect(r.code).toBe(5)
    expect(r.stderr).toContain('SIGNAL_CLI_ACCOUNT')
  })

  it('exits 6 naming the mapped groups the account is not a member of', async () => {
    const { toy, ours, theirs } = await oursAndTheirs()
    const docOk = randomUUID()
    const docBad = randomUUID()
    const r = await run({ ...baseEnv(toy, A, docOk), E2E_COL_DOCUMENTS: `${docOk}=${ours},${docBad}=${theirs}` })
    expect(r.code).toBe(6)
    expect(r.stderr).toContain(docBad)
    expect(r.stderr).not.toContain(docOk)
    expect(r.stderr).not.toContain(A)
  })

  it('exits 6 naming a mapped chat group the account is not a member of', async () => {
    const { toy, ours, theirs } = await oursAndTheirs()
    const docId = randomUUID()
    const chatId = randomUUID()
    const r = await run({
      ...baseEnv(toy, A, docId),
      E2E_COL_DOCUMENTS: `${docId}=${ours}`,
      E2E_COL_CHATS: `${chatId}=${theirs}`,
    })
    expect(r.code).toBe(6)
    expect(r.stderr).toContain(`chat ${chatId}`)
    expect(r.stderr).not.toContain(docId)
  })

  it('exits 7 when the events endpoint is not an event stream', async () => {
    const groupId = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
    const url = await daemonWithoutEvents(groupId)
    const docId = randomUUID()
    const r = await run({
      SIGNAL_CLI_URL: url,
      SIGNAL_CLI_ACCOUNT: A,
      E2E_COL_DOCUMENTS: `${docId}=${groupId}`,
      E2E_COL_SIGNAL_BODY_MAX_BYTES: '600',
      E2E_COL_LISTEN: '127.0.0.1:0',
      E2E_COL_DATA_DIR: tempDataDir(),
    })
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/text\/html/)
  })
})
