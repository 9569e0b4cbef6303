/**
 * Helpers for the documents API tests: raw HTTP calls (any Host, Origin or body), and a toy with
 * pending invitations and sidecars that have no E2E_COL_DOCUMENTS.
 */
import { request } from 'node:http'
import { createToySignal, type ToySignal, type ToySignalOptions } from '@e2e-col/toy-signal'
import { expect, onTestFinished } from 'vitest'
import type { RunningSidecar } from '../src/index.ts'
import { baseEnv, envelope, isMessage, poll, sidecar, type Client } from './harness.ts'

export const ALICE = '+15555550101'
export const BOB = '+15555550102'
export const CAROL = '+15555550103'

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  json: any
}

/** One HTTP call; `json` is the parsed body (undefined when empty). */
export function call(
  s: Pick<RunningSidecar, 'port'>,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  const headers: Record<string, string> = {
    host: `127.0.0.1:${s.port}`,
    ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    ...(body === undefined || options.raw !== undefined ? {} : { 'content-type': 'application/json' }),
    ...options.headers,
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, method, path, headers, setHost: false }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8')
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text === '' ? undefined : JSON.parse(text) })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** One JSON-RPC call on the toy as any account (`params.account`); its `result`. */
export async function rpc(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return ((await res.json()) as { result: unknown }).result
}

/** The next `n` calls of `method` on the toy answer `error` (its `/toy/v1/world/fail-next-calls`). */
export async function failNextCalls(
  toy: ToySignal,
  method: string,
  n: number,
  error: { code: number; message: string },
): Promise<void> {
  const res = await fetch(`${toy.url}/toy/v1/world/fail-next-calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method, n, ...error }),
  })
  if (res.status !== 204) throw new Error(`the toy refused fail-next-calls: ${res.status} ${await res.text()}`)
}

/** A toy for three people who share no group yet: adding one another invites (pending). */
/** Alice, Bob and Carol, named by their profiles; `more` adds e.g. the contact names they gave each other. */
export async function startPeopleToy(more: Partial<ToySignalOptions> = {}): Promise<ToySignal> {
  const toy = await createToySignal({
    accounts: [ALICE, BOB, CAROL],
    names: { [ALICE]: 'Alice', [BOB]: 'Bob', [CAROL]: 'Carol' },
    pendingInvites: true,
    faults: true,
    keepAliveMs: 1000,
    ...more,
  })
  onTestFinished(() => toy.close())
  return toy
}

/**
 * Waits until the toy lists each account's own member label in the group (every sidecar labels
 * itself with its role, decision 0037): a test that fails the next `updateGroup` must not have a
 * label call meet it instead.
 */
export async function labelsListed(toy: ToySignal, groupId: string, labels: Record<string, string>): Promise<void> {
  const [account] = Object.keys(labels)
  const deadline = Date.now() + 20_000
  for (;;) {
    const [group] = (await rpc(toy.url, 'listGroups', { account, groupId })) as {
      members: { number: string; label?: string }[]
    }[]
    const listed = Object.fromEntries((group?.members ?? []).map((m) => [m.number, m.label]))
    if (Object.entries(labels).every(([n, l]) => listed[n] === l)) return
    if (Date.now() > deadline) throw new Error(`labels not listed: ${JSON.stringify(listed)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The environment of a sidecar with no fixed documents. */
export function libraryEnv(
  toy: ToySignal,
  account: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env = baseEnv(toy, account, '00000000-0000-4000-8000-000000000000')
  delete env['E2E_COL_DOCUMENTS']
  return { ...env, ...extra }
}

export async function librarySidecar(
  toy: ToySignal,
  account: string,
  extra: Record<string, string> = {},
): Promise<RunningSidecar> {
  return sidecar(libraryEnv(toy, account, extra))
}

/** A member a document is made with: a number (an editor), or a number and its role. */
export type MemberSpec = string | { number: string; role: string }

/**
 * `owner` makes a document shared with `document.members`; then each of `invitees` (the members'
 * sidecars), in turn, waits for its invitation and accepts it (200: that sidecar now serves the
 * document). Most tests need a document shared between sidecars before they start, and wrote this
 * out each. It waits for exactly one invitation per invitee, so none may have another pending; a
 * test that checks something between sharing and accepting writes the steps out itself.
 */
export async function shareAndAccept(
  owner: Pick<RunningSidecar, 'port'>,
  document: { title: string; members: MemberSpec[] },
  invitees: readonly Pick<RunningSidecar, 'port'>[],
): Promise<{ docId: string; groupId: string }> {
  const created = await call(owner, 'POST', '/v1/docs', { body: document })
  expect(created.status).toBe(201)
  const { docId, groupId } = created.json as { docId: string; groupId: string }
  for (const s of invitees) {
    await poll(async () => (await call(s, 'GET', '/v1/invites')).json.invites.length === 1, 'the invitation')
    expect((await call(s, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
  }
  return { docId, groupId }
}

/** An edit from `one` reaches `other`, and a reply from `other` reaches `one` (within 10 s each). */
export async function editBothWays(docId: string, one: Client, other: Client): Promise<void> {
  for (const [from, to] of [
    [one, other],
    [other, one],
  ] as const) {
    const edit = envelope(docId, from.senderId, 40)
    from.send(edit)
    await to.waitFor(isMessage(edit.messageId), 10_000)
  }
}
