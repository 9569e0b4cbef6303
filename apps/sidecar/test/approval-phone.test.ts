/**
 * Approval from the phone end to end on the toy, each sidecar in a process of its own: an agent
 * token of Alice's proposes two suggestions; Alice's account sends exactly one Note to Self listing
 * both; Alice's sidecar is killed (SIGKILL) and started again over its data folder; the toy plays
 * Alice's phone replying "accept 1"; the first is accepted (Bob's sidecar shows it), the second
 * stays open, and a receipt follows; "accept 9" is answered and changes nothing.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, call, libraryEnv, rpc, shareAndAccept, startPeopleToy } from './docs-api.ts'
import { poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

const TEXT = '?target=t&kind=text'
const TARGET = { name: 't', kind: 'text' }

describe('approval from the phone', () => {
  it('one Note to Self lists both suggestions; "accept 1" from the phone accepts the first only and answers', async () => {
    const toy = await startPeopleToy()
    onTestFinished(() => toy.close())
    const envs = new Map([ALICE, BOB].map((a) => [a, libraryEnv(toy, a, { E2E_COL_MEMBERS_REFRESH_MS: '1000' })]))
    const children = new Map<string, ReturnType<typeof spawnSidecar>>()
    const peer = async (account: string) => {
      const child = spawnSidecar(envs.get(account) ?? {})
      children.set(account, child)
      const url = await child.ready
      return { url, port: Number(new URL(url).port) }
    }
    const [firstAlice, bob] = await Promise.all([peer(ALICE), peer(BOB)])
    let alice = firstAlice
    const { docId } = await shareAndAccept(alice, { title: 'Trip plan', members: [BOB] }, [bob])
    const page = await pageOn(docId, alice.url)
    page.edit('Day 2: long hike and a picnic.')
    const textOf = async (s: typeof bob) => (await call(s, 'GET', `/v1/docs/${docId}/text${TEXT}`)).json.text as string
    await poll(async () => (await textOf(bob)).endsWith('picnic.'), 'Bob holds the text')

    const token = (await call(alice, 'POST', '/v1/agent-tokens', { body: { docs: [docId], name: 'Claude' } })).json
      .token as string
    const bearer = { headers: { authorization: `Bearer ${token}` } }
    const base = (await call(alice, 'GET', `/v1/docs/${docId}/text${TEXT}`, bearer)).json.base as string
    const made = await Promise.all(
      [
        ['long hike', 'walk'],
        ['picnic', 'lunch'],
      ].map(([find, replace]) =>
        call(alice, 'POST', `/v1/docs/${docId}/suggestions`, {
          ...bearer,
          body: { base, find, replace, target: TARGET },
        }),
      ),
    )
    expect(made.map((m) => m.status)).toEqual([201, 201])
    const notes = () => toy.sends().filter((s) => s.account === ALICE && s.recipients?.[0] === ALICE)
    await poll(async () => notes().length >= 1, 'the list sent to Note to Self')
    const list = notes()[0]?.message ?? ''
    expect(list).toMatch(/^Claude suggests 2 changes in “Trip plan”:\n1\. .*\n2\. .*\nReply/)
    expect(list).not.toContain(docId)
    expect(notes()[0]?.urgent).toBe(true)
    const first = list.includes('1. “long hike”') ? 'walk' : 'lunch'

    // The laptop crashes after the list reached the phone: the reply still refers to it.
    const killed = children.get(ALICE)
    killed?.child.kill('SIGKILL')
    await killed?.exited
    alice = await peer(ALICE)

    await rpc(toy.url, 'send', { account: ALICE, noteToSelf: true, message: 'accept 1' })
    await poll(async () => notes().some((n) => n.message.startsWith('✅ accepted 1 of 1')), 'the receipt')
    expect(notes().find((n) => n.message.startsWith('✅'))?.message).toBe('✅ accepted 1 of 1 in “Trip plan”')
    await poll(async () => (await textOf(bob)).includes(first), "Bob's sidecar shows the accepted change")
    const listed = (await call(bob, 'GET', `/v1/docs/${docId}/suggestions`)).json.suggestions as { status: string }[]
    expect(listed.map((s) => s.status).sort()).toEqual(['accepted', 'open'])

    const before = await textOf(alice)
    await rpc(toy.url, 'send', { account: ALICE, noteToSelf: true, message: 'accept 9' })
    await poll(async () => notes().some((n) => n.message.includes('9 is not in the list')), 'the refusal')
    expect(await textOf(alice)).toBe(before)
  }, 90_000)
})
