/**
 * Agent tokens end to end on the toy with two real sidecars: Alice mints a token for "Trip plan";
 * the agent reads and suggests with it, and its suggestion reaches Bob's sidecar labelled
 * "Claude, for Alice"; the same token cannot accept or reject (403 REVIEW_AGENT_CANNOT_DECIDE),
 * cannot reach another document (403 REVIEW_AGENT_OUT_OF_SCOPE), and a token never minted is 401.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { parseDocsArgs, runDocsCommand } from '../src/cli/docs-cli.ts'
import { ALICE, BOB, call, librarySidecar, startPeopleToy } from './docs-api.ts'
import { poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

const TEXT = '?target=t&kind=text'
type Listed = { id: string; by?: string; agent?: string }
const code = (r: { status: number; json: { error?: { code: string } } }) => [r.status, r.json.error?.code]

describe('agent tokens', () => {
  it('a token reads and suggests in its document only, never decides; its suggestion is "Claude, for Alice"', async () => {
    const toy = await startPeopleToy()
    onTestFinished(() => toy.close())
    const [alice, bob] = await Promise.all([librarySidecar(toy, ALICE), librarySidecar(toy, BOB)])
    const make = async (title: string): Promise<string> => {
      const r = await call(alice, 'POST', '/v1/docs', { body: { title, members: [BOB] } })
      expect(r.status).toBe(201)
      return (r.json as { docId: string }).docId
    }
    const docId = await make('Trip plan')
    const other = await make('Budget')
    await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 2, 'the invitations')
    for (const id of [docId, other])
      expect((await call(bob, 'POST', `/v1/invites/${id}/accept`, { body: {} })).status).toBe(200)
    const page = await pageOn(docId, alice.url)
    page.edit('Day 2: long hike and a picnic.')

    const minted = await call(alice, 'POST', '/v1/agent-tokens', { body: { docs: [docId], name: 'Claude' } })
    expect(minted.status).toBe(201)
    const token = minted.json.token as string
    const bearer = { headers: { authorization: `Bearer ${token}` } }
    await poll(
      async () => (await call(alice, 'GET', `/v1/docs/${docId}/text${TEXT}`, bearer)).json?.text?.endsWith('picnic.'),
      'the agent reads the text',
    )
    const read = await call(alice, 'GET', `/v1/docs/${docId}/text${TEXT}`, bearer)
    const made = await call(alice, 'POST', `/v1/docs/${docId}/suggestions`, {
      ...bearer,
      body: {
        base: read.json.base,
        find: 'long hike and a ',
        replace: '',
        agent: 'Mallory',
        target: { name: 't', kind: 'text' },
      },
    })
    expect(made.status).toBe(201)
    const id = made.json.id as string
    let seen: Listed | undefined
    await poll(async () => {
      const list = (await call(bob, 'GET', `/v1/docs/${docId}/suggestions`)).json.suggestions as Listed[]
      seen = list.find((s) => s.id === id)
      // Alice's told-apart name as Bob's sidecar shows her (she is not in his contacts).
      return seen?.by?.startsWith('Claude, for Alice (') === true
    }, "the suggestion on Bob's sidecar, labelled")
    expect(seen).toMatchObject({ agent: 'Claude', by: 'Claude, for Alice (not in your contacts, …0101)' })

    for (const verb of ['accept', 'reject'])
      expect(
        code(await call(alice, 'POST', `/v1/docs/${docId}/suggestions/${id}/${verb}`, { ...bearer, body: {} })),
      ).toEqual([403, 'REVIEW_AGENT_CANNOT_DECIDE'])
    expect(code(await call(alice, 'GET', `/v1/docs/${other}/text${TEXT}`, bearer))).toEqual([
      403,
      'REVIEW_AGENT_OUT_OF_SCOPE',
    ])
    expect(code(await call(bob, 'GET', `/v1/docs/${docId}/text${TEXT}`, bearer))).toEqual([
      401,
      'REVIEW_AGENT_TOKEN_UNKNOWN',
    ])
    expect(
      code(await call(alice, 'POST', '/v1/agent-tokens', { ...bearer, body: { docs: [other], name: 'Claude' } })),
    ).toEqual([403, 'REVIEW_AGENT_CANNOT_MINT'])
    // The CLI mints one by the document's title (`e2e-col agent token --doc 'Budget' --name Claude`).
    const parsed = parseDocsArgs(['agent-token', 'Budget', '--name', 'Claude', '--sidecar', alice.url], {})
    if (parsed.kind !== 'docs') throw new Error(`not a command: ${JSON.stringify(parsed)}`)
    const printed = (await runDocsCommand(parsed.command)).trim()
    const budget = { headers: { authorization: `Bearer ${printed}` } }
    expect((await call(alice, 'GET', `/v1/docs/${other}/text${TEXT}`, budget)).status).toBe(200)
    expect(code(await call(alice, 'GET', `/v1/docs/${docId}/text${TEXT}`, budget))).toEqual([
      403,
      'REVIEW_AGENT_OUT_OF_SCOPE',
    ])
    // Alice herself (no token) still decides: the suggestion is open until then.
    expect((await call(alice, 'POST', `/v1/docs/${docId}/suggestions/${id}/accept`, { body: {} })).status).toBe(200)
  }, 90_000)
})
