import { afterEach, describe, expect, it } from 'vitest'
import { SignalCliError, SignalRpcError, SignalUnavailableError } from './errors.ts'
import { createHttpSignalBackend } from './http-backend.ts'
import { fakeDaemon, type FakeDaemon } from '../test/fake-daemon.ts'

const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

const daemons: FakeDaemon[] = []
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.close()))
})

/** A backend on a local HTTP daemon whose every rpc is answered by `answer(requestId, body)`. */
async function backendAnswering(
  answer: (id: unknown, body: Record<string, unknown>) => { status?: number; json?: unknown; text?: string },
) {
  const daemon = await fakeDaemon((request) => {
    if (request.path !== '/api/v1/rpc' || request.method !== 'POST') return { status: 404, text: '' }
    const body = JSON.parse(request.body) as Record<string, unknown>
    const a = answer(body['id'], body)
    return { status: a.status ?? 200, text: a.text ?? JSON.stringify(a.json), type: 'application/json' }
  })
  daemons.push(daemon)
  return createHttpSignalBackend({
    url: daemon.origin,
    account: '+33600000001',
    timeoutMs: 2000,
    streamIdleMs: 60_000,
  })
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e: unknown) => e,
  )
}

/** An all-failed send error with these result types, shaped as the real 0.13.19 answers one without network. */
function failed(types: string[]) {
  return {
    code: -1,
    message: 'Failed to send message',
    data: {
      response: {
        results: types.map((type) => ({
          recipientAddress: { uuid: 'secret-uuid', number: '+33799999999', username: null },
          type,
        })),
        timestamp: 1796132078096,
      },
    },
  }
}

describe('JSON-RPC send response checks', () => {
  it('accepts a JSON-RPC 2.0 answer with our id and a non-negative integer timestamp, sending group, message and account', async () => {
    let seen: Record<string, unknown> = {}
    const b = await backendAnswering((id, body) => {
      seen = body
      return { json: { jsonrpc: '2.0', id, result: { timestamp: 1721686852997, results: [] } } }
    })
    await expect(b.sendGroupMessage(GROUP, 'e2e-col:v1:AAAA')).resolves.toMatchObject({ timestamp: 1721686852997 })
    expect(seen).toMatchObject({
      jsonrpc: '2.0',
      method: 'send',
      params: { groupId: GROUP, message: 'e2e-col:v1:AAAA', account: '+33600000001' },
    })
  })

  it('uses a fresh id for every call', async () => {
    const ids: unknown[] = []
    const b = await backendAnswering((id) => {
      ids.push(id)
      return { json: { jsonrpc: '2.0', id, result: { timestamp: 1 } } }
    })
    await Promise.all([b.sendGroupMessage(GROUP, 'a'), b.sendGroupMessage(GROUP, 'b'), b.sendGroupMessage(GROUP, 'c')])
    expect(new Set(ids).size).toBe(3)
  })

  it('refuses an answer whose id does not match the request', async () => {
    const b = await backendAnswering((id) => ({
      json: { jsonrpc: '2.0', id: Number(id) + 1, result: { timestamp: 1 } },
    }))
    const e = await rejection(b.sendGroupMessage(GROUP, 'x'))
    expect(e).toBeInstanceOf(SignalCliError)
    expect((e as SignalCliError).code).toBe('SIDECAR_SIGNAL_BAD_RESPONSE')
  })

  it.each([
    ['missing', {}],
    ['negative', { timestamp: -1 }],
    ['fractional', { timestamp: 1.5 }],
    ['a string', { timestamp: '1721686852997' }],
  ])('refuses a result whose timestamp is %s', async (_name, result) => {
    const b = await backendAnswering((id) => ({ json: { jsonrpc: '2.0', id, result } }))
    expect(((await rejection(b.sendGroupMessage(GROUP, 'x'))) as SignalCliError).code).toBe(
      'SIDECAR_SIGNAL_BAD_RESPONSE',
    )
  })

  it('refuses an answer that is not JSON-RPC 2.0', async () => {
    const b = await backendAnswering((id) => ({ json: { jsonrpc: '1.0', id, result: { timestamp: 1 } } }))
    expect(((await rejection(b.sendGroupMessage(GROUP, 'x'))) as SignalCliError).code).toBe(
      'SIDECAR_SIGNAL_BAD_RESPONSE',
    )
    const c = await backendAnswering(() => ({ text: 'not json' }))
    expect(((await rejection(c.sendGroupMessage(GROUP, 'x'))) as SignalCliError).code).toBe(
      'SIDECAR_SIGNAL_BAD_RESPONSE',
    )
  })

  it('surfaces an id:null error as its code and message', async () => {
    const b = await backendAnswering(() => ({
      json: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Unexpected end-of-input', data: null } },
    }))
    const e = await rejection(b.sendGroupMessage(GROUP, 'x'))
    expect(e).toBeInstanceOf(SignalRpcError)
    expect((e as SignalRpcError).rpcCode).toBe(-32700)
    expect((e as SignalRpcError).message).toContain('Unexpected end-of-input')
  })

  it('never surfaces error.data, yet reads the rate-limit pause out of a -5', async () => {
    const b = await backendAnswering((id) => ({
      json: {
        jsonrpc: '2.0',
        id,
        error: {
          code: -5,
          message: 'Failed to send message due to rate limiting',
          data: {
            response: {
              timestamp: 1,
              results: [
                {
                  recipientAddress: { uuid: 'secret-uuid', number: '+33799999999' },
                  type: 'RATE_LIMIT_FAILURE',
                  token: 'tok-123',
                  retryAfterSeconds: 42,
                },
              ],
            },
          },
        },
      },
    }))
    const e = (await rejection(b.sendGroupMessage(GROUP, 'x'))) as SignalRpcError
    expect(e.rpcCode).toBe(-5)
    expect(e.retryAfterSeconds).toBe(42)
    const everything = JSON.stringify({ ...e, message: e.message, cause: e.cause })
    for (const secret of ['+33799999999', 'secret-uuid', 'tok-123', 'recipientAddress'])
      expect(everything).not.toContain(secret)
  })

  it('marks an all-failed -1 whose every result is NETWORK_FAILURE as a network failure, and only that one', async () => {
    const answers = [
      failed(['NETWORK_FAILURE', 'NETWORK_FAILURE']),
      failed(['NETWORK_FAILURE', 'UNREGISTERED_FAILURE']),
      failed([]),
      { code: -1, message: 'No recipients given', data: null },
    ]
    let next = 0
    const b = await backendAnswering((id) => ({ json: { jsonrpc: '2.0', id, error: answers[next++] } }))
    const flags: boolean[] = []
    for (let i = 0; i < answers.length; i += 1) {
      const e = (await rejection(b.sendGroupMessage(GROUP, 'x'))) as SignalRpcError
      expect(e.rpcCode).toBe(-1)
      expect(JSON.stringify({ ...e, message: e.message })).not.toContain('+33799999999')
      flags.push(e.networkFailure)
    }
    expect(flags).toEqual([true, false, false, false])
  })

  it('masks phone numbers inside a daemon error message', async () => {
    const b = await backendAnswering((id) => ({
      json: {
        jsonrpc: '2.0',
        id,
        error: { code: -1, message: 'The user +33712345678 is not registered.', data: null },
      },
    }))
    const e = (await rejection(b.sendGroupMessage(GROUP, 'x'))) as SignalRpcError
    expect(e.message).not.toContain('+33712345678')
    expect(e.message).toContain('+33…78')
  })

  it('reports HTTP 5xx as unavailable (retryable), other statuses as a bad response', async () => {
    const b = await backendAnswering(() => ({ status: 503, text: '' }))
    expect(await rejection(b.sendGroupMessage(GROUP, 'x'))).toBeInstanceOf(SignalUnavailableError)
    const c = await backendAnswering(() => ({ status: 421, text: '' }))
    expect(((await rejection(c.sendGroupMessage(GROUP, 'x'))) as SignalCliError).code).toBe(
      'SIDECAR_SIGNAL_BAD_RESPONSE',
    )
  })

  it('treats a daemon without `version` as "version unavailable", not a failure', async () => {
    const b = await backendAnswering((id) => ({
      json: { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not implemented', data: null } },
    }))
    await expect(b.version()).resolves.toBeUndefined()
  })

  it('carries the chat loop’s calls with their documented params and reads the created group id', async () => {
    const seen: Record<string, unknown>[] = []
    const b = await backendAnswering((id, body) => {
      seen.push(body)
      const result =
        body['method'] === 'updateGroup'
          ? { groupId: GROUP, timestamp: 5 }
          : body['method'] === 'listGroups'
            ? [{ id: GROUP, isMember: true, members: [{ number: '+33600000002' }], pendingMembers: ['+33600000003'] }]
            : {}
      return { json: { jsonrpc: '2.0', id, result } }
    })
    await expect(b.createGroup('e2e-col-host-topic', ['+33600000002'])).resolves.toBe(GROUP)
    await b.acceptGroupRequest(GROUP)
    await b.sendReaction(GROUP, { author: '+33600000002', timestamp: 17 }, '✅')
    await expect(b.listGroups(GROUP)).resolves.toMatchObject([{ id: GROUP, pendingMembers: ['+33600000003'] }])
    await b.quitGroup(GROUP)
    expect(seen.map((r) => [r['method'], r['params']])).toEqual([
      ['updateGroup', { name: 'e2e-col-host-topic', members: ['+33600000002'], account: '+33600000001' }],
      ['sendMessageRequestResponse', { groupId: GROUP, type: 'accept', account: '+33600000001' }],
      [
        'sendReaction',
        { groupId: GROUP, emoji: '✅', targetAuthor: '+33600000002', targetTimestamp: 17, account: '+33600000001' },
      ],
      ['listGroups', { groupId: GROUP, account: '+33600000001' }],
      ['quitGroup', { groupId: GROUP, account: '+33600000001' }],
    ])
  })

  it('refuses an updateGroup answer without a group id', async () => {
    const b = await backendAnswering((id) => ({ json: { jsonrpc: '2.0', id, result: { timestamp: 5 } } }))
    expect(((await rejection(b.createGroup('g', []))) as SignalCliError).code).toBe('SIDECAR_SIGNAL_BAD_RESPONSE')
  })
})

describe('group administration for documents', () => {
  it('sends the params signal-cli reads for create, change, leave and contacts, and reads their answers', async () => {
    const seen: Record<string, unknown>[] = []
    const b = await backendAnswering((id, body) => {
      seen.push(body)
      const method = body['method']
      if (method === 'updateGroup' && (body['params'] as Record<string, unknown>)['groupId'] === undefined)
        return { json: { jsonrpc: '2.0', id, result: { groupId: GROUP, timestamp: 1, results: [] } } }
      if (method === 'listContacts') {
        return {
          json: {
            jsonrpc: '2.0',
            id,
            result: [
              { number: '+33600000002', name: 'Bobby', profile: { givenName: 'Bob', familyName: null } },
              { number: '+33600000003', name: '', profile: { givenName: 'Carol', familyName: 'C' } },
              { number: '+33600000005', name: '', nickName: 'Dee', profile: { givenName: 'Dora', familyName: null } },
              { number: null, name: 'Hidden number', profile: null },
              { number: '+33600000004', name: null, profile: null },
            ],
          },
        }
      }
      return { json: { jsonrpc: '2.0', id, result: {} } }
    })
    expect(
      await b.createGroupWith({
        name: 'Trip plan',
        members: ['+33600000002'],
        description: 'd',
        expirationSeconds: 86400,
      }),
    ).toBe(GROUP)
    await b.updateGroup(GROUP, { addMembers: ['+33600000003'], removeMembers: [] })
    await b.updateGroup(GROUP, {})
    await b.updateGroup(GROUP, { removeMembers: ['+33600000003'], ban: ['+33600000003'] })
    await b.updateGroup(GROUP, { ban: [] })
    await b.updateGroup(GROUP, { link: 'disabled' })
    await b.createGroupWith({
      name: 'Roles',
      members: ['+33600000002'],
      description: 'd',
      expirationSeconds: 0,
      admins: ['+33600000002'],
      permissions: 'only-admins',
    })
    await b.updateGroup(GROUP, {
      addAdmins: ['+33600000003'],
      removeAdmins: ['+33600000002'],
      permissions: 'only-admins',
    })
    await b.leaveGroup(GROUP, ['+33600000002'])
    expect(await b.listContacts()).toEqual([
      { number: '+33600000002', name: 'Bobby', inContacts: true },
      { number: '+33600000003', name: 'Carol C', inContacts: false },
      { number: '+33600000005', name: 'Dora', inContacts: true },
      { number: '+33600000004', name: undefined, inContacts: false },
    ])
    expect(seen.map((s) => [s['method'], s['params']])).toEqual([
      [
        'updateGroup',
        { name: 'Trip plan', members: ['+33600000002'], description: 'd', expiration: 86400, account: '+33600000001' },
      ],
      ['updateGroup', { groupId: GROUP, members: ['+33600000003'], account: '+33600000001' }],
      ['updateGroup', { groupId: GROUP, account: '+33600000001' }],
      [
        'updateGroup',
        { groupId: GROUP, removeMembers: ['+33600000003'], ban: ['+33600000003'], account: '+33600000001' },
      ],
      ['updateGroup', { groupId: GROUP, account: '+33600000001' }],
      ['updateGroup', { groupId: GROUP, link: 'disabled', account: '+33600000001' }],
      [
        'updateGroup',
        {
          name: 'Roles',
          members: ['+33600000002'],
          description: 'd',
          expiration: 0,
          admins: ['+33600000002'],
          setPermissionAddMember: 'only-admins',
          setPermissionEditDetails: 'only-admins',
          account: '+33600000001',
        },
      ],
      [
        'updateGroup',
        {
          groupId: GROUP,
          admins: ['+33600000003'],
          removeAdmins: ['+33600000002'],
          setPermissionAddMember: 'only-admins',
          setPermissionEditDetails: 'only-admins',
          account: '+33600000001',
        },
      ],
      ['quitGroup', { groupId: GROUP, admins: ['+33600000002'], account: '+33600000001' }],
      ['listContacts', { allRecipients: true, account: '+33600000001' }],
    ])
  })

  it("reads listIdentities' trust levels as verified, unverified and changed (anything unknown warns)", async () => {
    const b = await backendAnswering((id) => ({
      json: {
        jsonrpc: '2.0',
        id,
        result: [
          { number: '+33600000002', uuid: 'u2', trustLevel: 'TRUSTED_VERIFIED', addedTimestamp: 1 },
          { number: '+33600000003', uuid: 'u3', trustLevel: 'TRUSTED_UNVERIFIED', addedTimestamp: 1 },
          { number: '+33600000004', uuid: 'u4', trustLevel: 'UNTRUSTED', addedTimestamp: 1 },
          { number: '+33600000005', uuid: 'u5', trustLevel: 'SOMETHING_NEW', addedTimestamp: 1 },
          { number: null, uuid: 'u6', trustLevel: 'TRUSTED_VERIFIED', addedTimestamp: 1 },
        ],
      },
    }))
    expect(await b.listIdentities()).toEqual([
      { number: '+33600000002', safety: 'verified' },
      { number: '+33600000003', safety: 'unverified' },
      { number: '+33600000004', safety: 'changed' },
      { number: '+33600000005', safety: 'changed' },
    ])
  })
})

describe('account-free calls', () => {
  it('a backend bound to an account asks the daemon for listAccounts, without the account, and reads -32601 as single-account mode', async () => {
    const sent: Record<string, unknown>[] = []
    let singleAccount = false
    const backend = await backendAnswering((id, body) => {
      sent.push(body)
      return singleAccount
        ? { json: { jsonrpc: '2.0', error: { code: -32601, message: 'Method not implemented' }, id } }
        : { json: { jsonrpc: '2.0', result: [{ number: '+33600000009' }], id } }
    })
    // The daemon's list, not the bound account echoed back: the bound account is not on it.
    expect(await backend.listAccounts()).toEqual(['+33600000009'])
    expect(sent[0]).not.toHaveProperty('params')
    singleAccount = true
    expect(await backend.listAccounts()).toBeUndefined()
  })
})
