/**
 * Documents made from the API while the sidecars run, over the toy daemon with pending
 * invitations: create, invite, accept, edit, remove, restart; bad input; daemon failures at each
 * step; and who may call the API at all.
 */
import { describe, expect, it } from 'vitest'
import { docIdForGroup } from '../src/library/doc-id.ts'
import { documentDescription } from '../src/group/group-tag.ts'
import { createHttpSignalBackend } from '@e2e-col/signal-cli'
import {
  ALICE,
  BOB,
  CAROL,
  call,
  editBothWays,
  failNextCalls,
  librarySidecar,
  libraryEnv,
  rpc,
  startPeopleToy,
} from './docs-api.ts'
import { connect, envelope, metricValue, poll, sidecar } from './harness.ts'

const groupsOf = async (url: string, account: string): Promise<any[]> => rpc(url, 'listGroups', { account })

describe('documents made from the API', () => {
  it('Alice creates a document with Bob; Bob sees the invitation, accepts, both edit; Alice removes Bob and his sidecar stops serving it', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)

    const created = await call(alice, 'POST', '/v1/docs', { body: { title: 'Trip plan', members: [BOB] } })
    expect(created.status).toBe(201)
    const { docId, groupId } = created.json as { docId: string; groupId: string }
    expect(docId).toBe(docIdForGroup(groupId))
    const group = (await groupsOf(toy.url, ALICE)).find((g) => g.id === groupId)
    expect(group.description).toBe(documentDescription())
    expect(group.messageExpirationTime).toBe(86_400)

    // Served at once on Alice's side; nothing on Bob's until he accepts.
    const aliceWs = await connect(alice, docId)
    expect((await call(bob, 'GET', '/v1/docs')).json.documents).toEqual([])
    await expect(connect(bob, docId)).rejects.toThrow(/404/)
    const invites = (await call(bob, 'GET', '/v1/invites')).json.invites
    expect(invites).toEqual([
      expect.objectContaining({
        id: docId,
        title: 'Trip plan',
        // Bob never gave Alice a name: her profile name is all there is, and the invitation says so.
        from: expect.objectContaining({
          number: ALICE,
          name: 'Alice',
          inContacts: false,
          shown: 'Alice (not in your contacts, …0101)',
        }),
      }),
    ])

    const accepted = await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })
    expect(accepted.status).toBe(200)
    expect(accepted.json).toEqual({ docId, groupId })
    expect((await call(bob, 'GET', '/v1/invites')).json.invites).toEqual([])
    const bobDocs = (await call(bob, 'GET', '/v1/docs')).json.documents
    expect(bobDocs).toEqual([expect.objectContaining({ docId, title: 'Trip plan', state: 'active', fixed: false })])
    expect(bobDocs[0].members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ number: ALICE, status: 'member', admin: true }),
        expect.objectContaining({ number: BOB, status: 'member', you: true }),
      ]),
    )
    // Invited before Signal let him in, Bob joins as a plain member; Alice's sidecar makes him an
    // editor (an admin) once he is in (roles/promotions.ts).
    await poll(
      async () =>
        (await call(bob, 'GET', '/v1/docs')).json.documents[0].members.some(
          (m: { number: string; admin?: boolean; role?: string }) =>
            m.number === BOB && m.admin === true && m.role === 'editor',
        ),
      'Bob made an editor once he joined',
    )

    const bobWs = await connect(bob, docId)
    await editBothWays(docId, aliceWs, bobWs)
    await poll(
      async () => (await call(alice, 'GET', '/v1/docs')).json.documents[0]?.lastChange !== null,
      "Alice's last change time",
    )

    const removed = await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { remove: [BOB] } })
    expect(removed.status).toBe(200)
    expect(removed.json.members.map((m: { number: string }) => m.number)).toEqual([ALICE])
    // Bob's sidecar hears of the change, stops serving the document and closes its sockets.
    expect((await bobWs.closed).code).toBe(1008)
    await poll(
      async () => (await call(bob, 'GET', '/v1/docs')).json.documents[0]?.state === 'removed',
      "Bob's document to be marked removed",
    )
    await expect(connect(bob, docId)).rejects.toThrow(/404/)
    const sentBefore = toy.sends().filter((s) => s.groupId === groupId).length
    aliceWs.send(envelope(docId, aliceWs.senderId, 40))
    await poll(
      () => toy.sends().filter((s) => s.groupId === groupId).length > sentBefore,
      "Alice's send after the removal",
    )
    expect((await groupsOf(toy.url, BOB)).find((g) => g.id === groupId).isMember).toBe(false)
  }, 60_000)

  it('a restarted sidecar keeps its documents, their titles and members, and serves them again', async () => {
    const toy = await startPeopleToy()
    const env = libraryEnv(toy, ALICE)
    const first = await sidecar(env)
    const { docId } = (await call(first, 'POST', '/v1/docs', { body: { title: 'Garden', members: [CAROL] } })).json as {
      docId: string
    }
    expect((await call(first, 'PATCH', `/v1/docs/${docId}`, { body: { title: 'Garden 2027' } })).json.title).toBe(
      'Garden 2027',
    )
    await first.close()

    const second = await sidecar(env)
    const docs = (await call(second, 'GET', '/v1/docs')).json.documents
    expect(docs).toEqual([expect.objectContaining({ docId, title: 'Garden 2027', state: 'active' })])
    expect(docs[0].members.map((m: { number: string; status: string }) => `${m.number}:${m.status}`)).toEqual([
      `${ALICE}:member`,
      `${CAROL}:invited`,
    ])
    const ws = await connect(second, docId)
    expect(ws.ws.readyState).toBe(1)
    // A sidecar on a number of its own makes groups without a disappearing-messages timer.
    await second.close()
    const dedicated = await sidecar({ ...env, E2E_COL_SETUP: 'dedicated-number' })
    const own = (await call(dedicated, 'POST', '/v1/docs', { body: { title: 'Own number', members: [] } })).json as {
      groupId: string
    }
    expect((await groupsOf(toy.url, ALICE)).find((g) => g.id === own.groupId).messageExpirationTime).toBe(0)
    expect((await call(dedicated, 'GET', '/v1/docs')).json.documents.map((d: { title: string }) => d.title)).toEqual([
      'Garden 2027',
      'Own number',
    ])
    // With the daemon unable to answer, the stored members are shown.
    await failNextCalls(toy, 'listGroups', 1, { code: -3, message: 'network' })
    const offline = (await call(dedicated, 'GET', '/v1/docs')).json
    expect(offline.membersFrom).toBe('store')
    expect(offline.documents[0].title).toBe('Garden 2027')
  }, 30_000)

  it('a group a stranger made is offered, never served until accepted; declining leaves it; an untagged group is not offered', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const tagged = await rpc(toy.url, 'updateGroup', {
      account: CAROL,
      name: 'Free money',
      members: [ALICE],
      description: documentDescription(),
    })
    await rpc(toy.url, 'updateGroup', { account: CAROL, name: 'Just chat', members: [ALICE], description: 'hello' })
    const id = docIdForGroup(tagged.groupId)
    await poll(async () => (await call(alice, 'GET', '/v1/invites')).json.invites.length === 1, 'the invitation')
    expect((await call(alice, 'GET', '/v1/invites')).json.invites[0]).toMatchObject({
      id,
      title: 'Free money',
      from: { number: CAROL },
    })
    expect((await call(alice, 'GET', '/v1/docs')).json.documents).toEqual([])
    await expect(connect(alice, id)).rejects.toThrow(/404/)
    // Carol's updates and even bodies in the group change nothing on Alice's side.
    await rpc(toy.url, 'send', { account: CAROL, groupId: tagged.groupId, message: 'e2e-col:v1:AAAA' })
    expect((await call(alice, 'GET', '/v1/docs')).json.documents).toEqual([])

    expect((await call(alice, 'POST', `/v1/invites/${id}/decline`, { body: {} })).status).toBe(204)
    expect((await call(alice, 'GET', '/v1/invites')).json.invites).toEqual([])
    const seen = (await groupsOf(toy.url, ALICE)).find((g) => g.id === tagged.groupId)
    expect(seen.isMember).toBe(false)
    expect(seen.pendingMembers).toEqual([])
    expect((await call(alice, 'POST', `/v1/invites/${id}/accept`, { body: {} })).json.error.code).toBe(
      'DOCS_UNKNOWN_INVITE',
    )
  }, 30_000)

  it('leaving a document leaves its group, stops serving it and forgets it; contacts list the people shared with', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const { docId, groupId } = (await call(alice, 'POST', '/v1/docs', { body: { title: 'Notes', members: [BOB] } }))
      .json as { docId: string; groupId: string }
    await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 1, "Bob's invitation")
    await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })
    // The people the account knows (the toy: its other accounts and the members of its groups), never the account itself.
    const contacts = (await call(alice, 'GET', '/v1/contacts')).json.contacts as { number: string; name?: string }[]
    expect(contacts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          number: BOB,
          name: 'Bob',
          inContacts: false,
          shown: 'Bob (not in your contacts, …0102)',
        }),
      ]),
    )
    expect(contacts.map((c) => c.number)).not.toContain(ALICE)

    const ws = await connect(alice, docId)
    expect((await call(alice, 'DELETE', `/v1/docs/${docId}`, { body: {} })).status).toBe(204)
    expect((await ws.closed).code).toBe(1008)
    expect((await call(alice, 'GET', '/v1/docs')).json.documents).toEqual([])
    const seen = (await groupsOf(toy.url, ALICE)).find((g) => g.id === groupId)
    expect(seen.isMember).toBe(false)
    // Alice was the only admin: Bob was named the new one.
    expect(
      (await groupsOf(toy.url, BOB)).find((g) => g.id === groupId).admins.map((a: { number: string }) => a.number),
    ).toEqual([BOB])
    expect((await call(alice, 'DELETE', `/v1/docs/${docId}`, { body: {} })).json.error.code).toBe(
      'DOCS_UNKNOWN_DOCUMENT',
    )
  }, 30_000)
})

const code = async (p: Promise<{ status: number; json: any }>): Promise<string> => {
  const r = await p
  return `${r.status} ${r.json?.error?.code}`
}

describe('how much work a member can cause', () => {
  it('a burst of group updates for a served document costs a bounded number of group look-ups', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const env = libraryEnv(toy, BOB)
    const inner = createHttpSignalBackend({ url: toy.url, account: BOB, timeoutMs: 5000, streamIdleMs: 60_000 })
    let lookups = 0
    const counted = {
      ...inner,
      listGroups: (groupId?: string) => {
        if (groupId !== undefined) lookups += 1
        return inner.listGroups(groupId)
      },
    }
    const bob = await sidecar(env, { backend: counted })
    const { docId, groupId } = (await call(alice, 'POST', '/v1/docs', { body: { title: 'Busy', members: [BOB] } }))
      .json as { docId: string; groupId: string }
    await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })
    const updatesBefore = await metricValue(bob.url, 'e2e_col_group_updates_total')
    lookups = 0
    const BURST = 40
    // Look-ups are slow (the daemon answers after 100 ms) and the updates come at once.
    toy.faults.setDelay(100)
    await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        rpc(toy.url, 'updateGroup', { account: ALICE, groupId, name: `Busy ${i}` }),
      ),
    )
    await poll(
      // At least: Bob's sidecar labelling itself in the group (labels/self-label.ts) may be one more.
      async () => (await metricValue(bob.url, 'e2e_col_group_updates_total')) - updatesBefore >= BURST,
      "Bob's sidecar to read every update",
    )
    // A rename of Bob's runs after every look-up already waiting (operations take turns), and makes one of its own.
    expect((await call(bob, 'PATCH', `/v1/docs/${docId}`, { body: { title: 'Calm' } })).status).toBe(200)
    toy.faults.setDelay(0)
    // Updates arriving while a look-up waits share it: far fewer look-ups than updates.
    expect(lookups).toBeGreaterThan(1)
    expect(lookups).toBeLessThanOrEqual(BURST / 4)
  }, 30_000)
})

describe('bad input to the documents API', () => {
  it('answers each with a 4xx and a stable code, and never creates anything', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const post = (body: unknown) => call(alice, 'POST', '/v1/docs', { body })
    expect(await code(post({ title: '   ', members: [] }))).toBe('400 DOCS_TITLE_EMPTY')
    expect(await code(post({ title: 'x'.repeat(33), members: [] }))).toBe('400 DOCS_TITLE_TOO_LONG')
    // Characters as people see them: 32 family emoji are 32 characters, not 352 code units.
    expect((await post({ title: '👨‍👩‍👧‍👦'.repeat(32), members: [] })).status).toBe(201)
    expect(await code(post({ title: 'a\u0007b', members: [] }))).toBe('400 DOCS_TITLE_INVALID')
    expect(await code(post({ title: 'Trip', members: ['0612345678'] }))).toBe('400 DOCS_BAD_NUMBER')
    expect(
      await code(
        post({ title: 'Trip', members: Array.from({ length: 51 }, (_, i) => `+1555000${String(i).padStart(4, '0')}`) }),
      ),
    ).toBe('400 DOCS_TOO_MANY_MEMBERS')
    expect(await code(post({ title: 'Trip', members: [BOB], extra: 1 }))).toBe('400 DOCS_BAD_REQUEST')
    expect(await code(post({ title: 42 }))).toBe('400 DOCS_BAD_REQUEST')
    expect(
      await code(
        call(alice, 'POST', '/v1/docs', { raw: '{"title":', headers: { 'content-type': 'application/json' } }),
      ),
    ).toBe('400 API_BAD_JSON')
    expect(
      await code(
        call(alice, 'POST', '/v1/docs', {
          raw: JSON.stringify({ title: 'x'.repeat(20_000) }),
          headers: { 'content-type': 'application/json' },
        }),
      ),
    ).toBe('413 API_BODY_TOO_LARGE')
    expect(await code(call(alice, 'PUT', '/v1/docs', { body: {} }))).toBe('405 API_METHOD_NOT_ALLOWED')
    expect(await code(call(alice, 'GET', '/v1/docs/nope'))).toBe('404 API_NOT_FOUND')
    const unknown = '0190a6c8-1111-4222-8333-444455556667'
    expect(await code(call(alice, 'PATCH', `/v1/docs/${unknown}`, { body: { title: 'x' } }))).toBe(
      '404 DOCS_UNKNOWN_DOCUMENT',
    )
    expect(await code(call(alice, 'POST', `/v1/docs/${unknown}/members`, { body: { add: [BOB] } }))).toBe(
      '404 DOCS_UNKNOWN_DOCUMENT',
    )
    expect(await code(call(alice, 'DELETE', `/v1/docs/${unknown}`, { body: {} }))).toBe('404 DOCS_UNKNOWN_DOCUMENT')
    expect(await code(call(alice, 'POST', `/v1/invites/${unknown}/accept`, { body: {} }))).toBe(
      '404 DOCS_UNKNOWN_INVITE',
    )
    const { docId } = (await post({ title: 'Real', members: [] })).json as { docId: string }
    expect(await code(call(alice, 'POST', `/v1/docs/${docId}/members`, { body: {} }))).toBe('400 DOCS_BAD_REQUEST')
    expect(await code(call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { remove: [ALICE] } }))).toBe(
      '400 DOCS_BAD_REQUEST',
    )
    expect(await code(call(alice, 'PATCH', `/v1/docs/${docId}`, { body: { title: '' } }))).toBe('400 DOCS_TITLE_EMPTY')
    // Only the two documents made above exist, on the sidecar and on Signal.
    expect((await call(alice, 'GET', '/v1/docs')).json.documents.map((d: { title: string }) => d.title)).toEqual([
      '👨‍👩‍👧‍👦'.repeat(32),
      'Real',
    ])
    expect((await groupsOf(toy.url, ALICE)).length).toBe(2)
  }, 30_000)
})

describe('daemon failures on the way', () => {
  it('leave no half-made document: a failed create makes nothing, a failed accept leaves the new group again', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    await failNextCalls(toy, 'updateGroup', 1, {
      code: -32603,
      message: 'Failed to send message: timeout (IOException)',
    })
    const noGroup = await call(alice, 'POST', '/v1/docs', { body: { title: 'One', members: [BOB] } })
    expect(noGroup.status).toBe(502)
    expect(noGroup.json.error.code).toBe('DOCS_DAEMON_FAILED')
    expect(noGroup.json.error.message).toContain('create the group')
    expect(await groupsOf(toy.url, ALICE)).toEqual([])

    await failNextCalls(toy, 'sendMessageRequestResponse', 1, { code: -1, message: 'No recipients given' })
    const noAccept = await call(alice, 'POST', '/v1/docs', { body: { title: 'Two', members: [BOB] } })
    expect(noAccept.status).toBe(502)
    expect(noAccept.json.error.message).toMatch(/accept the new group .*left again/)
    const left = await groupsOf(toy.url, ALICE)
    expect(left.map((g) => [g.name, g.isMember])).toEqual([['Two', false]])
    expect((await call(alice, 'GET', '/v1/docs')).json.documents).toEqual([])

    await failNextCalls(toy, 'sendMessageRequestResponse', 1, { code: -1, message: 'x' })
    await failNextCalls(toy, 'quitGroup', 1, { code: -3, message: 'Failed to send message: offline (IOException)' })
    const stuck = await call(alice, 'POST', '/v1/docs', { body: { title: 'Three', members: [BOB] } })
    expect(stuck.status).toBe(502)
    expect(stuck.json.error.message).toContain('leaving the new group failed too')
    expect((await call(alice, 'GET', '/v1/docs')).json.documents).toEqual([])
  }, 30_000)

  it('a failed share, rename, leave, join or decline changes nothing and says which step failed', async () => {
    // A daemon before member labels (0.14.1): a sidecar's own label call, made whenever a listing
    // comes, would otherwise meet the failure meant for the share, rename or join (decision 0037).
    const toy = await startPeopleToy({ signalCliVersion: '0.14.0' })
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const { docId } = (await call(alice, 'POST', '/v1/docs', { body: { title: 'Plan', members: [BOB] } })).json as {
      docId: string
    }
    const fail = (method: string) => failNextCalls(toy, method, 1, { code: -1, message: 'refused' })

    await fail('updateGroup')
    const share = await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { add: [CAROL] } })
    expect([share.status, share.json.error.message]).toEqual([502, expect.stringContaining('change the members')])
    await fail('updateGroup')
    expect((await call(alice, 'PATCH', `/v1/docs/${docId}`, { body: { title: 'Other' } })).status).toBe(502)
    await fail('quitGroup')
    expect((await call(alice, 'DELETE', `/v1/docs/${docId}`, { body: {} })).status).toBe(502)
    const still = (await call(alice, 'GET', '/v1/docs')).json.documents
    expect(still).toEqual([expect.objectContaining({ docId, title: 'Plan', state: 'active' })])
    expect(still[0].members.map((m: { number: string }) => m.number)).toEqual([ALICE, BOB])

    await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 1, "Bob's invitation")
    await fail('updateGroup')
    const join = await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })
    expect([join.status, join.json.error.message]).toEqual([502, expect.stringContaining('join the group')])
    await fail('sendMessageRequestResponse')
    const answer = await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })
    expect(answer.json.error.message).toContain('the invitation stays open')
    expect((await call(bob, 'GET', '/v1/docs')).json.documents).toEqual([])
    await fail('quitGroup')
    expect((await call(bob, 'POST', `/v1/invites/${docId}/decline`, { body: {} })).status).toBe(502)
    expect((await call(bob, 'GET', '/v1/invites')).json.invites.map((i: { id: string }) => i.id)).toEqual([docId])
    await fail('listGroups')
    expect((await call(bob, 'GET', '/v1/invites')).json.error.code).toBe('DOCS_DAEMON_FAILED')
    await fail('listContacts')
    expect((await call(bob, 'GET', '/v1/contacts')).json.error.code).toBe('DOCS_DAEMON_FAILED')
    expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
  }, 30_000)
})

describe('who may call the documents API', () => {
  it('refuses a rebinding-style Host (421), a foreign Origin (403, reads too), a form post, and names only allowed origins in CORS', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE, { E2E_COL_ALLOWED_ORIGINS: 'http://127.0.0.1:5173' })
    const page = 'http://127.0.0.1:5173'

    for (const host of [
      'evil.example',
      `evil.example:${alice.port}`,
      `127.0.0.1:${alice.port + 1}`,
      '127.0.0.1.nip.io',
    ]) {
      const r = await call(alice, 'GET', '/v1/docs', { headers: { host } })
      expect([host, r.status, r.json?.error?.code]).toEqual([host, 421, 'API_HOST_NOT_ALLOWED'])
    }
    expect((await call(alice, 'GET', '/v1/docs', { headers: { host: `localhost:${alice.port}` } })).status).toBe(200)

    const foreign = await call(alice, 'GET', '/v1/docs', { headers: { origin: 'https://evil.example' } })
    expect([foreign.status, foreign.json.error.code]).toEqual([403, 'API_ORIGIN_NOT_ALLOWED'])
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined()
    // A browser request without Origin that is not same-origin (a no-cors read, a navigation from elsewhere).
    expect((await call(alice, 'GET', '/v1/contacts', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403)

    const form = await call(alice, 'POST', '/v1/docs', {
      raw: 'title=Pwned&members=%2B15555550103',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    })
    expect(form.status).toBe(403)
    const sameSiteForm = await call(alice, 'POST', '/v1/docs', {
      raw: 'title=Pwned',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: page },
    })
    expect([sameSiteForm.status, sameSiteForm.json.error.code]).toEqual([415, 'API_UNSUPPORTED_MEDIA_TYPE'])
    const textPlain = await call(alice, 'POST', '/v1/docs', {
      raw: '{"title":"Pwned"}',
      headers: { 'content-type': 'text/plain', origin: page },
    })
    expect(textPlain.status).toBe(415)
    expect(await groupsOf(toy.url, ALICE)).toEqual([])

    const allowed = await call(alice, 'GET', '/v1/docs', { headers: { origin: page } })
    expect(allowed.status).toBe(200)
    expect(allowed.headers['access-control-allow-origin']).toBe(page)
    const preflight = await call(alice, 'OPTIONS', '/v1/docs', {
      headers: {
        origin: page,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-methods']).toContain('POST')
    const badPreflight = await call(alice, 'OPTIONS', '/v1/docs', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(badPreflight.status).toBe(403)
    expect(badPreflight.headers['access-control-allow-origin']).toBeUndefined()
    // A local program (the CLI) sends no Origin.
    expect((await call(alice, 'GET', '/v1/invites')).status).toBe(200)
  }, 30_000)
})
