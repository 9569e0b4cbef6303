/**
 * Member labels (decision 0037): each sidecar labels its own account in each document group with
 * its role, when it joins and whenever the role changes, so a phone shows roles beside names.
 * Signal lets a member set only its own label. A daemon before signal-cli 0.14.1 is asked
 * nothing and the sidecar says so once in its log. Sidecars in processes of their own, on the toy
 * over HTTP, with a recording pass-through in front of the toy for Bob's sidecar.
 */
import type { ToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it } from 'vitest'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, call, libraryEnv, rpc, shareAndAccept, startPeopleToy } from './docs-api.ts'
import { poll } from './harness.ts'
import { startRpcRecorder, type RpcRecorder } from './rpc-recorder.ts'

const FAST = { E2E_COL_MEMBERS_REFRESH_MS: '1000' }
const OLD_DAEMON_LINE = 'predates member labels'

interface Sidecar {
  url: string
  port: number
  log: () => string
}

/** A sidecar with the documents API in its own process, reaching the daemon at `daemonUrl`. */
async function labelSidecar(toy: ToySignal, account: string, daemonUrl: string): Promise<Sidecar> {
  const child = spawnSidecar({ ...libraryEnv(toy, account, FAST), SIGNAL_CLI_URL: daemonUrl })
  let out = ''
  child.child.stdout?.on('data', (d: Buffer) => (out += d.toString()))
  const url = await child.ready
  return { url, port: Number(new URL(url).port), log: () => out }
}

/** Alice shares "Plan" with Bob as a viewer; Bob accepts. */
async function sharedWithBob(toy: ToySignal, bobDaemon: RpcRecorder) {
  const alice = await labelSidecar(toy, ALICE, toy.url)
  const bob = await labelSidecar(toy, BOB, bobDaemon.url)
  const { docId, groupId } = await shareAndAccept(
    alice,
    { title: 'Plan', members: [{ number: BOB, role: 'viewer' }] },
    [bob],
  )
  return { alice, bob, docId, groupId }
}

async function labelOf(toy: ToySignal, groupId: string, number: string): Promise<string | undefined> {
  const [group] = (await rpc(toy.url, 'listGroups', { account: ALICE, groupId })) as {
    members: { number: string; label?: string }[]
  }[]
  return group?.members.find((m) => m.number === number)?.label
}

const labelCalls = (r: RpcRecorder) =>
  r.calls.filter((c) => c.method === 'updateGroup' && c.params['memberLabel'] !== undefined)

describe('member labels', () => {
  it("each sidecar labels its own account with its role; a promotion and a demotion change Bob's label", async () => {
    const toy = await startPeopleToy()
    const bobDaemon = await startRpcRecorder(toy.url)
    const { alice, groupId, docId } = await sharedWithBob(toy, bobDaemon)
    await poll(async () => (await labelOf(toy, groupId, ALICE)) === 'editor', "Alice's own label")
    await poll(async () => (await labelOf(toy, groupId, BOB)) === 'viewer', "Bob's own label")

    const path = `/v1/docs/${docId}/members/${encodeURIComponent(BOB)}`
    expect((await call(alice, 'PATCH', path, { body: { role: 'editor' } })).status).toBe(200)
    await poll(async () => (await labelOf(toy, groupId, BOB)) === 'editor', 'Bob labelled editor once promoted')
    expect((await call(alice, 'PATCH', path, { body: { role: 'commenter' } })).status).toBe(200)
    await poll(async () => (await labelOf(toy, groupId, BOB)) === 'commenter', 'Bob labelled commenter once demoted')

    // Every label call of Bob's sidecar set its own label, and one per role it had.
    const calls = labelCalls(bobDaemon)
    expect(calls.map((c) => c.params['memberLabel'])).toEqual(['viewer', 'editor', 'commenter'])
    for (const c of calls) expect(Object.keys(c.params).sort()).toEqual(['account', 'groupId', 'memberLabel'])
  }, 90_000)

  it('a daemon before 0.14.1 is asked for no label, and the sidecar says so once in its log', async () => {
    const toy = await startPeopleToy({ signalCliVersion: '0.13.19' })
    const bobDaemon = await startRpcRecorder(toy.url)
    const { alice, bob, docId, groupId } = await sharedWithBob(toy, bobDaemon)
    const path = `/v1/docs/${docId}/members/${encodeURIComponent(BOB)}`
    expect((await call(alice, 'PATCH', path, { body: { role: 'editor' } })).status).toBe(200)
    const admins = async () =>
      ((await rpc(toy.url, 'listGroups', { account: ALICE, groupId })) as { admins: { number: string }[] }[])[0]
        ?.admins ?? []
    await poll(async () => (await admins()).some((m) => m.number === BOB), 'Bob made an admin')
    // Bob's sidecar has seen its promotion (it reads its role from the listings it takes).
    await poll(async () => bobDaemon.calls.filter((c) => c.method === 'listGroups').length >= 3, 'listings taken')
    await poll(async () => bob.log().includes(OLD_DAEMON_LINE), 'the one log line')

    expect(labelCalls(bobDaemon)).toEqual([])
    expect(bob.log().split(OLD_DAEMON_LINE).length - 1).toBe(1)
    expect(await labelOf(toy, groupId, BOB)).toBeUndefined()
    expect(await labelOf(toy, groupId, ALICE)).toBeUndefined()
  }, 90_000)
})
