/**
 * The production side of a contract case: the same daemon driven through `@e2e-col/signal-cli`,
 * the client the sidecar, the chat loop and setup use. Where a raw probe checks the wire, a client
 * run checks what that wire becomes for the callers: parsed results, typed errors with their codes,
 * events read by the client's SSE reader.
 * @see docs/daemon-contract.md §6.11 (how a case runs twice)
 */
import {
  createHttpSignalBackend,
  createProvisioningClient,
  SignalEventsRefusedError,
  SignalRpcError,
  SignalUnavailableError,
  type FullSignalBackend,
  type ProvisioningClient,
  type SignalEvent,
  type SignalEventStream,
} from '@e2e-col/signal-cli'
import { expect } from 'vitest'
import { waiters } from './waiters.ts'

/** The production clients of one target, made on first use and closed with the target. */
export interface ClientDaemon {
  /**
   * The backend bound to `account` (none: calls carry no account, as on a one-account daemon), of
   * the target's daemon or of `url` (a toy a case started for itself).
   */
  backend(account?: string, url?: string): FullSignalBackend
  /** The provisioning client of `url` (default: the target's daemon). */
  provisioning(url?: string): ProvisioningClient
  close(): Promise<void>
}

/** Generous per-call deadline: a real daemon on a busy machine answers slowly, never wrongly. */
const CALL_TIMEOUT_MS = 30_000

export function clientDaemon(url: () => string): ClientDaemon {
  const backends = new Map<string, FullSignalBackend>()
  return {
    backend(account, other) {
      const origin = other ?? url()
      const key = JSON.stringify([origin, account ?? null])
      let backend = backends.get(key)
      if (backend === undefined) {
        backend = createHttpSignalBackend({
          url: origin,
          account,
          timeoutMs: CALL_TIMEOUT_MS,
          streamIdleMs: 60_000,
        })
        backends.set(key, backend)
      }
      return backend
    },
    provisioning: (other) => createProvisioningClient({ url: other ?? url(), timeoutMs: CALL_TIMEOUT_MS }),
    async close() {
      await Promise.all([...backends.values()].map((b) => b.close()))
      backends.clear()
    },
  }
}

/** The error `call` rejects with; undefined when it resolves. */
export function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (e: unknown) => e,
  )
}

/**
 * Asserts that `call` fails with the client's typed JSON-RPC error: code `SIDECAR_SIGNAL_RPC_ERROR`,
 * the daemon's numeric code, and its message (phone numbers masked, as the client keeps it).
 */
export async function expectRpcFailure(
  call: Promise<unknown>,
  rpcCode: number,
  message: string | RegExp,
): Promise<SignalRpcError> {
  const error = await call.then(
    (result) => {
      throw new Error(`expected signal-cli error ${rpcCode}, got a result: ${JSON.stringify(result)}`)
    },
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(SignalRpcError)
  const rpc = error as SignalRpcError
  expect(rpc.code).toBe('SIDECAR_SIGNAL_RPC_ERROR')
  expect(rpc.rpcCode).toBe(rpcCode)
  if (typeof message === 'string') expect(rpc.rpcMessage).toBe(message)
  else expect(rpc.rpcMessage).toMatch(message)
  return rpc
}

/** Asserts that `backend`'s events stream is refused with HTTP `status` (the client's typed refusal). */
export async function expectEventsRefused(
  backend: FullSignalBackend,
  status: number,
): Promise<SignalEventsRefusedError> {
  const error = await rejectionOf(backend.openEvents(new AbortController().signal))
  expect(error).toBeInstanceOf(SignalEventsRefusedError)
  const refused = error as SignalEventsRefusedError
  expect(refused.status).toBe(status)
  return refused
}

/** Asserts that `error` is the client's outage error (`SIDECAR_SIGNAL_UNAVAILABLE`), never a refusal. */
export function expectUnavailable(error: unknown): void {
  expect(error).toBeInstanceOf(SignalUnavailableError)
  expect((error as SignalUnavailableError).code).toBe('SIDECAR_SIGNAL_UNAVAILABLE')
}

/** An events stream of the client, read in the background into {@link events}. */
export interface ClientEvents {
  readonly events: SignalEvent[]
  /** Resolves with the first event (already read or future) that matches. */
  waitFor(match: (e: SignalEvent) => boolean, timeoutMs?: number): Promise<SignalEvent>
  /** Resolves when the stream ends, with the error that ended it (undefined for a clean end). */
  readonly ended: Promise<unknown>
  close(): void
}

/** Reads an opened stream of the client until it ends or is closed. */
export function readClientEvents(stream: SignalEventStream): ClientEvents {
  const events: SignalEvent[] = []
  const pending = waiters()
  const ended = (async () => {
    try {
      for await (const event of stream) {
        events.push(event)
        pending.notify()
      }
      return undefined
    } catch (error) {
      return error
    } finally {
      pending.notify()
    }
  })()
  return {
    events,
    ended,
    waitFor: (match, timeoutMs = 10_000) =>
      pending.wait(
        () => events.find(match),
        timeoutMs,
        () => `timed out after ${timeoutMs} ms waiting for an event; read: ${JSON.stringify(events)}`,
      ),
    close: () => stream.close(),
  }
}

/** Opens `account`'s stream through the client and starts reading it. */
export async function openClientEvents(client: ClientDaemon, account?: string, url?: string): Promise<ClientEvents> {
  return readClientEvents(await client.backend(account, url).openEvents(new AbortController().signal))
}
