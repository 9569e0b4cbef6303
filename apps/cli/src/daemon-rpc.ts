/**
 * The few daemon calls setup makes: the account-free provisioning methods and the first group.
 * One JSON-RPC request per call over `POST /api/v1/rpc`, each with its own deadline.
 */
import { z } from 'zod'

/** A JSON-RPC error from the daemon: its code and message (never `data`). */
export class DaemonRpcError extends Error {
  override readonly name = 'DaemonRpcError'
  readonly rpcCode: number
  readonly method: string
  constructor(method: string, rpcCode: number, message: string) {
    super(message)
    this.method = method
    this.rpcCode = rpcCode
  }
}

/** The daemon did not answer (refused, timed out, or answered something that is not JSON-RPC). */
export class DaemonUnreachableError extends Error {
  override readonly name = 'DaemonUnreachableError'
}

const Response = z.object({
  jsonrpc: z.literal('2.0'),
  result: z.unknown().optional(),
  error: z.object({ code: z.number().int(), message: z.string() }).optional(),
})

let nextId = 1

async function call<T>(url: string, method: string, params: Record<string, unknown> | undefined, result: z.ZodType<T>, timeoutMs: number): Promise<T> {
  const id = nextId++
  let text: string
  try {
    const res = await fetch(`${url}/api/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params === undefined ? { jsonrpc: '2.0', method, id } : { jsonrpc: '2.0', method, params, id }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    text = await res.text()
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? `no answer to ${method} within ${Math.round(timeoutMs / 1000)} s` : (error as Error).message
    throw new DaemonUnreachableError(`signal-cli at ${url}: ${why}`, { cause: error })
  }
  let parsed
  try {
    parsed = Response.parse(JSON.parse(text))
  } catch {
    throw new DaemonUnreachableError(`signal-cli at ${url} answered ${method} with something that is not JSON-RPC`)
  }
  if (parsed.error !== undefined) throw new DaemonRpcError(method, parsed.error.code, parsed.error.message)
  const ok = result.safeParse(parsed.result)
  if (!ok.success) throw new DaemonUnreachableError(`signal-cli at ${url} answered ${method} with an unexpected result`)
  return ok.data
}

/** The provisioning client of one daemon. */
export interface ProvisioningClient {
  version(): Promise<string>
  listAccounts(): Promise<string[]>
  startLink(): Promise<string>
  /** Blocks until the phone scanned the code (or signal-cli gives up); resolves with the number. */
  finishLink(deviceLinkUri: string, deviceName: string, waitMs: number): Promise<string>
  register(number: string, options: { captcha?: string; voice?: boolean }): Promise<void>
  verify(number: string, code: string, pin?: string): Promise<void>
  /** Creates a group with the account as its only member; resolves with its id. */
  createGroup(account: string, name: string, description: string): Promise<string>
}

export function provisioningClient(url: string, timeoutMs = 30_000): ProvisioningClient {
  const none = z.unknown()
  return {
    version: async () => (await call(url, 'version', undefined, z.object({ version: z.string() }).loose(), timeoutMs)).version,
    listAccounts: async () => (await call(url, 'listAccounts', undefined, z.array(z.object({ number: z.string() }).loose()), timeoutMs)).map((a) => a.number),
    startLink: async () => (await call(url, 'startLink', undefined, z.object({ deviceLinkUri: z.string().startsWith('sgnl://') }).loose(), timeoutMs)).deviceLinkUri,
    finishLink: async (deviceLinkUri, deviceName, waitMs) =>
      (await call(url, 'finishLink', { deviceLinkUri, deviceName }, z.object({ number: z.string() }).loose(), waitMs + timeoutMs)).number,
    async register(number, options) {
      const params: Record<string, unknown> = { account: number }
      if (options.captcha !== undefined) params['captcha'] = options.captcha
      if (options.voice === true) params['voice'] = true
      await call(url, 'register', params, none, timeoutMs)
    },
    async verify(number, code, pin) {
      await call(url, 'verify', pin === undefined ? { account: number, verificationCode: code } : { account: number, verificationCode: code, pin }, none, timeoutMs)
    },
    createGroup: async (account, name, description) =>
      (await call(url, 'updateGroup', { account, name, description }, z.object({ groupId: z.string().min(1) }).loose(), timeoutMs)).groupId,
  }
}
