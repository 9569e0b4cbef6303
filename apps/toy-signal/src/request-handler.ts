/**
 * The HTTP surface of the daemon, as `HttpServerHandler` has it: `/api/v1/rpc`, `/api/v1/events`,
 * `/api/v1/check` (JDK context prefix matching: a longer path under a context is an empty 404, a
 * path outside every context the JDK's HTML 404), plus `/toy/v1/` when faults are on.
 * @see docs/daemon-contract.md §2
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { handleAdmin } from './admin-route.ts'
import { handleWorldAdmin } from './admin-world.ts'
import { handleProvisioningAdmin, isProvisioningAdminPath } from './provisioning-admin.ts'
import type { ProvisioningState } from './provisioning-state.ts'
import { dispatch } from './dispatch.ts'
import type { EventHub, StreamScope } from './event-hub.ts'
import type { FaultState, FaultSwitches } from './faults.ts'
import { isHostAllowed } from './host-check.ts'
import { parseRpcBody, type RpcResponse } from './jsonrpc.ts'
import type { ToySignalState } from './state.ts'
import type { AttachmentStore } from './attachments.ts'
import type { SignalPace } from './pace.ts'

/** Largest rpc body the toy reads; above it answers 413 (a bound of the toy, not of signal-cli). */
export const MAX_RPC_BODY_BYTES = 16 * 1024 * 1024

const CONTEXTS = ['/api/v1/rpc', '/api/v1/events', '/api/v1/check'] as const
const NO_CONTEXT_PAGE = '<h1>404 Not Found</h1>No context found for request'

/** What the handler needs from the daemon. */
export interface HandlerDeps {
  state: ToySignalState
  hub: EventHub
  faults: { enabled: boolean; state: FaultState; switches: FaultSwitches }
  provisioning: ProvisioningState
  bind: { host: string; port(): number }
  log: (line: string) => void
  attachments: AttachmentStore
  maxAttachmentBytes: number
  pace: SignalPace | undefined
  /** Runs after a request's work and before its answer (the groups file is written here). */
  afterRequest: () => void
}

function empty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-length': '0' }).end()
}

class BodyTooLarge extends Error {
  readonly code = 'TOY_BODY_TOO_LARGE'
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buffer = chunk as Buffer
    size += buffer.length
    if (size > MAX_RPC_BODY_BYTES) throw new BodyTooLarge()
    chunks.push(buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Creates the request listener. */
export function createRequestHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = Date.now()
    res.on('close', () =>
      deps.log(
        `${req.method ?? '?'} ${(req.url ?? '').split('?')[0] ?? ''} -> ${res.statusCode} (${Date.now() - started} ms)`,
      ),
    )
    handle(deps, req, res).catch((error: unknown) => {
      deps.log(`request failed: ${error instanceof Error ? error.message : String(error)}`)
      if (!res.headersSent) empty(res, 500)
      else res.destroy()
    })
  }
}

async function handle(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/'
  const queryAt = url.indexOf('?')
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  const rawQuery = queryAt === -1 ? '' : url.slice(queryAt + 1)
  const method = req.method ?? ''

  if (deps.faults.enabled && path.startsWith('/toy/v1/')) {
    const text = method === 'POST' ? await readBody(req) : ''
    const answer = isProvisioningAdminPath(path)
      ? handleProvisioningAdmin(method, path, text, deps.provisioning)
      : (handleWorldAdmin(method, path, text, deps) ??
        handleAdmin(method, path, text, deps.faults.switches, () => deps.state.sends()))
    deps.afterRequest()
    if (answer.body === undefined) return empty(res, answer.status)
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body))
    return
  }
  const context = CONTEXTS.find((c) => path.startsWith(c))
  if (context === undefined) {
    res.writeHead(404, { 'content-type': 'text/html', connection: 'close' }).end(NO_CONTEXT_PAGE)
    return
  }
  if (context !== '/api/v1/check' && !isHostAllowed(req.headers.host, deps.bind.host, deps.bind.port()))
    return empty(res, 421)
  if (path !== context) return empty(res, 404)
  if (context === '/api/v1/check') return empty(res, method === 'GET' ? 200 : 405)
  if (context === '/api/v1/events') return method === 'GET' ? events(deps, rawQuery, res) : empty(res, 405)
  if (method !== 'POST') return empty(res, 405)
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return empty(res, 415)
  return rpc(deps, req, res)
}

function events(deps: HandlerDeps, rawQuery: string, res: ServerResponse): void {
  const failure = deps.faults.state.takeEventsFailure()
  if (failure !== undefined) {
    // The `failEvents` fault: what a broken daemon or a proxy in front of it could answer instead.
    const headers: Record<string, string> = { 'content-length': '0' }
    if (failure.contentType !== undefined) headers['content-type'] = failure.contentType
    res.writeHead(failure.status, headers).end()
    return
  }
  // signal-cli reads the raw query and decodes once: `%2B` is `+`, and (v0.14.6) a literal `+` stays `+`.
  let requested: string | undefined
  for (const part of rawQuery.split('&')) {
    if (!part.startsWith('account=')) continue
    try {
      requested = decodeURIComponent(part.slice('account='.length))
    } catch {
      requested = part.slice('account='.length)
    }
  }
  let scope: StreamScope = { kind: 'all' }
  if (deps.state.mode === 'single') scope = { kind: 'account', account: deps.state.accounts[0] ?? '' }
  else if (requested !== undefined && requested !== '') {
    if (!deps.state.isAccount(requested)) return empty(res, 400)
    scope = { kind: 'account', account: requested }
  }
  deps.hub.attach(res, scope)
}

async function rpc(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (deps.faults.state.takeRpcFailure()) return empty(res, 500)
  let text: string
  try {
    text = await readBody(req)
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'TOY_BODY_TOO_LARGE') return empty(res, 413)
    throw error
  }
  let drop = false
  const base = {
    state: deps.state,
    hub: deps.hub,
    faults: deps.faults.state,
    attachments: deps.attachments,
    maxAttachmentBytes: deps.maxAttachmentBytes,
    pace: deps.pace,
    provisioning: deps.provisioning,
    dropConnection: () => {
      drop = true
    },
  }
  const parsed = parseRpcBody(text)
  let reply: RpcResponse | RpcResponse[] | undefined
  if (parsed.kind === 'rejected') reply = parsed.response
  else if (parsed.kind === 'single') {
    const item = parsed.item
    reply = item.kind === 'call' ? await dispatch(item.call, base) : item.kind === 'invalid' ? item.response : undefined
  } else {
    // Elements run in parallel and are answered in completion order, as on the real daemon.
    const out: RpcResponse[] = []
    await Promise.all(
      parsed.items.map(async (item) => {
        if (item.kind === 'invalid') out.push(item.response)
        if (item.kind !== 'call') return
        const response = await dispatch(item.call, base)
        if (response !== undefined) out.push(response)
      }),
    )
    reply = out.length === 0 ? undefined : out
  }
  deps.afterRequest()
  const delay = deps.faults.state.delayMs()
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
  if (drop) {
    req.socket.destroy()
    return
  }
  if (reply === undefined) return empty(res, 201)
  const body = JSON.stringify(reply)
  res
    .writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) })
    .end(body)
}
