/**
 * The account-free calls `e2e-col setup` makes on a multi-account daemon: `startLink`/`finishLink`
 * (this machine becomes a linked device) and `register`/`verify` (a number of its own). Groups are
 * not made here: the sidecar makes a document's group when the person makes the document. One
 * JSON-RPC request per call, each with its own deadline;
 * `finishLink` waits as long as the phone may take to scan.
 * @see docs/daemon-contract.md §5 (the toy's provisioning) and signal-cli's `StartLinkCommand`,
 *   `FinishLinkCommand`, `RegisterCommand`, `VerifyCommand`
 */
import { z } from 'zod'
import { asSignalCliFailure, SignalUnavailableError } from './errors.ts'
import { discard, exchange, MAX_RPC_RESPONSE_BYTES, readCapped } from './http-exchange.ts'
import { AccountList, encodeRequest, IgnoredResult, parseResponse, VersionResult, type RpcId } from './jsonrpc.ts'

/** The provisioning calls of one daemon. Failures: SignalRpcError (the daemon's code and message), SignalUnavailableError, SignalCliError. */
export interface ProvisioningClient {
  version(): Promise<string>
  /** The daemon's accounts (multi-account mode; -32601 on a single-account daemon). */
  listAccounts(): Promise<string[]>
  /** A `sgnl://linkdevice?uuid=…&pub_key=…` URI to show as a QR code. */
  startLink(): Promise<string>
  /** Blocks until the phone scanned the code, or signal-cli gives up; resolves with the phone's number. */
  finishLink(deviceLinkUri: string, deviceName: string, waitMs: number): Promise<string>
  register(number: string, options: { captcha?: string; voice?: boolean }): Promise<void>
  verify(number: string, code: string, pin?: string): Promise<void>
}

export interface ProvisioningClientOptions {
  /** The daemon's origin, e.g. `http://127.0.0.1:8080`. */
  readonly url: string
  /** Deadline of one call (default 30 s); `finishLink` gets its wait on top. */
  readonly timeoutMs?: number
}

const LinkUri = z.object({ deviceLinkUri: z.string().startsWith('sgnl://') }).loose()
const Linked = z.object({ number: z.string() }).loose()

export function createProvisioningClient(options: ProvisioningClientOptions): ProvisioningClient {
  const origin = new URL(options.url).origin
  const timeoutMs = options.timeoutMs ?? 30_000
  let nextId: RpcId = 0

  async function call<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: z.ZodType<T>,
    deadlineMs = timeoutMs,
  ): Promise<T> {
    const id = ++nextId
    let text: string
    try {
      const res = await exchange(undefined, `${origin}/api/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: encodeRequest(id, method, params),
        headersTimeoutMs: deadlineMs,
        bodyIdleMs: deadlineMs,
      })
      if (res.statusCode !== 200) {
        await discard(res.body)
        throw new SignalUnavailableError(`signal-cli ${method} answered HTTP ${res.statusCode}`)
      }
      text = await readCapped(res.body, MAX_RPC_RESPONSE_BYTES)
    } catch (error) {
      if (asSignalCliFailure(error) !== undefined) throw error
      const code = (error as { code?: unknown }).code
      const why =
        code === 'HEADERS_TIMEOUT' || code === 'BODY_TIMEOUT'
          ? `no answer within ${Math.round(deadlineMs / 1000)} s`
          : typeof code === 'string'
            ? code
            : (error as Error).message
      throw new SignalUnavailableError(`signal-cli at ${origin}: ${method} failed (${why})`, { cause: error })
    }
    return parseResponse(text, id, schema)
  }

  return {
    version: async () => (await call('version', undefined, VersionResult)).version,
    listAccounts: async () => (await call('listAccounts', undefined, AccountList)).map((a) => a.number),
    startLink: async () => (await call('startLink', undefined, LinkUri)).deviceLinkUri,
    finishLink: async (deviceLinkUri, deviceName, waitMs) =>
      (await call('finishLink', { deviceLinkUri, deviceName }, Linked, waitMs + timeoutMs)).number,
    async register(number, opts) {
      await call(
        'register',
        {
          account: number,
          ...(opts.captcha === undefined ? {} : { captcha: opts.captcha }),
          ...(opts.voice === true ? { voice: true } : {}),
        },
        IgnoredResult,
      )
    },
    async verify(number, code, pin) {
      await call(
        'verify',
        { account: number, verificationCode: code, ...(pin === undefined ? {} : { pin }) },
        IgnoredResult,
      )
    },
  }
}
