/**
 * Names and titles from strangers and members (docs/reliability.md §2.4): a group name that would
 * overwrite the terminal line, a rename that sets the window title, a right-to-left override and
 * names of 1,000 characters reach `/v1/invites`, `/v1/docs` and `docs list` replaced and bounded,
 * never raw; titles the person types with such characters are refused with a code.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it, onTestFinished } from 'vitest'
import { parseDocsArgs, runDocsCommand, DocsCliError } from '../src/cli/docs-cli.ts'
import { docIdForGroup } from '../src/library/doc-id.ts'
import { documentDescription } from '../src/group/group-tag.ts'
import { ALICE, BOB, CAROL, call, librarySidecar, rpc } from './docs-api.ts'
import { poll } from './harness.ts'

const ESC = '\u001b'
const OVERWRITE = `Lunch\r${ESC}[2K${ESC}[8mAccept 0000`
const WINDOW_TITLE = `${ESC}]0;Accept 0000${'\u0007'}Notes`
const REVERSED = 'Budget \u202Eslx.exe'
const LONG = 'L'.repeat(1000)
// Anything a terminal or a page would act on rather than show.
const UNSAFE = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u
const graphemes = (s: string): number =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)].length

const docs = async (url: string, argv: string[]): Promise<string> => {
  const r = parseDocsArgs([...argv, '--sidecar', url], {})
  if (r.kind !== 'docs') throw new Error(JSON.stringify(r))
  return runDocsCommand(r.command)
}

describe('hostile names from Signal', () => {
  it("a stranger's and a member's names reach /v1/invites, /v1/docs and docs list replaced and bounded", async () => {
    const toy = await createToySignal({
      accounts: [ALICE, BOB, CAROL],
      // Carol's profile name: a line overwrite, then 1,000 characters.
      names: { [ALICE]: 'Alice', [BOB]: 'Bob', [CAROL]: `${OVERWRITE}${LONG}` },
      pendingInvites: true,
      keepAliveMs: 1000,
    })
    onTestFinished(() => toy.close())
    const alice = await librarySidecar(toy, ALICE)
    const stranger = async (name: string): Promise<string> =>
      (
        await rpc(toy.url, 'updateGroup', {
          account: CAROL,
          name,
          members: [ALICE],
          description: documentDescription(),
        })
      ).groupId
    const overwrite = await stranger(OVERWRITE)
    const long = await stranger(LONG)
    const reversed = await stranger(REVERSED)
    await poll(async () => (await call(alice, 'GET', '/v1/invites')).json.invites.length === 3, 'three invitations')

    const invites = (await call(alice, 'GET', '/v1/invites')).json.invites as {
      groupId: string
      title: string
      from: { number: string; name: string }
    }[]
    const titleOf = (groupId: string): string | undefined => invites.find((i) => i.groupId === groupId)?.title
    expect(titleOf(overwrite)).toBe('Lunch\uFFFD\uFFFD[2K\uFFFD[8mAccept 0000')
    expect(titleOf(long)).toBe(`${'L'.repeat(31)}…`)
    expect(titleOf(reversed)).toBe('Budget \uFFFDslx.exe')
    for (const i of invites) {
      expect(i.from.number).toBe(CAROL)
      expect(i.from.name).not.toMatch(UNSAFE)
      expect(graphemes(i.from.name)).toBe(64)
    }
    const before = await docs(alice.url, ['list'])
    expect(before.replace(/\n/g, '')).not.toMatch(UNSAFE)
    expect(before).toContain("shared 'Lunch\uFFFD\uFFFD[2K\uFFFD[8mAccept 0000' with you")

    // A member renames an accepted document to set the window title.
    const docId = docIdForGroup(overwrite)
    expect((await call(alice, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
    await rpc(toy.url, 'updateGroup', { account: CAROL, groupId: overwrite, name: WINDOW_TITLE })
    const shown = '\uFFFD]0;Accept 0000\uFFFDNotes'
    await poll(async () => (await call(alice, 'GET', '/v1/docs')).json.documents[0]?.title === shown, 'the rename')
    const listed = await docs(alice.url, ['list'])
    expect(listed).toContain(`  ${shown}  ·  with `)
    expect(listed.replace(/\n/g, '')).not.toMatch(UNSAFE)
    expect(JSON.stringify(JSON.parse(await docs(alice.url, ['list', '--json'])))).not.toMatch(UNSAFE)
  }, 60_000)

  it('titles the person types with controls, bidi controls or nothing visible are refused with a code', async () => {
    const toy = await createToySignal({ accounts: [ALICE, BOB], pendingInvites: true, keepAliveMs: 1000 })
    onTestFinished(() => toy.close())
    const alice = await librarySidecar(toy, ALICE)
    const refusal = async (title: string): Promise<[number, string, string]> => {
      const r = await call(alice, 'POST', '/v1/docs', { body: { title } })
      return [r.status, r.json.error.code, r.json.error.message]
    }
    expect(await refusal(OVERWRITE)).toEqual([400, 'DOCS_TITLE_INVALID', expect.stringContaining('control characters')])
    expect(await refusal(REVERSED)).toEqual([400, 'DOCS_TITLE_INVALID', expect.stringContaining('bidi controls')])
    expect(await refusal('a\u2066b\u2069')).toEqual([400, 'DOCS_TITLE_INVALID', expect.stringContaining('bidi')])
    expect(await refusal('\u200B')).toEqual([400, 'DOCS_TITLE_INVALID', expect.stringContaining('nothing visible')])
    expect(await refusal('a\u2028b')).toEqual([400, 'DOCS_TITLE_INVALID', expect.stringContaining('control')])
    expect(await refusal(LONG)).toEqual([400, 'DOCS_TITLE_TOO_LONG', expect.any(String)])
    const made = await call(alice, 'POST', '/v1/docs', { body: { title: 'Plain' } })
    const rename = await call(alice, 'PATCH', `/v1/docs/${made.json.docId}`, { body: { title: '\u061Cx' } })
    expect([rename.status, rename.json.error.code]).toEqual([400, 'DOCS_TITLE_INVALID'])
    // Nothing refused reached Signal.
    expect((await rpc(toy.url, 'listGroups', { account: ALICE })).map((g: { name: string }) => g.name)).toEqual([
      'Plain',
    ])
  }, 30_000)
})

describe('docs CLI output', () => {
  it('prints no control character it did not write, even from a sidecar that sends them raw', async () => {
    const raw = { number: `+1${ESC}[2K`, name: `${WINDOW_TITLE}\u009b2J` }
    const answers: Record<string, unknown> = {
      '/v1/docs': {
        you: ALICE,
        membersFrom: 'daemon',
        documents: [
          {
            docId: `00000000-0000-4000-8000-00000000000${ESC}`,
            title: OVERWRITE,
            members: [{ ...raw, status: `member\r`, you: false }],
            lastChange: null,
            state: 'active',
          },
        ],
      },
      '/v1/invites': { invites: [{ id: `id\u202E`, title: REVERSED, from: raw }] },
    }
    const server = createServer((req, res) => {
      const answer = answers[req.url ?? '']
      if (answer === undefined)
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: `X${ESC}[8m`, message: `no\r${ESC}]0;t\u0007` } }))
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

    const text = await docs(url, ['list'])
    expect(text.split('\n').length).toBe(5)
    expect(text.replace(/\n/g, '')).not.toMatch(UNSAFE)
    expect(text).toContain(
      '  Lunch\\u000d\\u001b[2K\\u001b[8mAccept 0000  ·  with \\u001b]0;Accept 0000\\u0007Notes\\u009b2J (+1\\u001b[2K) [member\\u000d]',
    )
    expect(text).toContain("shared 'Budget \\u202eslx.exe' with you  ·  accept: e2e-col docs accept id\\u202e")
    const json = await docs(url, ['list', '--json'])
    expect(json.slice(0, -1)).not.toMatch(UNSAFE)
    // Escaped, not changed: the JSON still says what the sidecar said.
    expect(JSON.parse(json).invites[0].title).toBe(REVERSED)
    const refused = (await docs(url, ['leave', '00000000-0000-4000-8000-000000000001']).catch(
      (e: unknown) => e,
    )) as DocsCliError
    expect(`${refused.code}: ${refused.message}`).toBe('X\\u001b[8m: no\\u000d\\u001b]0;t\\u0007')
    // Its own usage errors echo an argument escaped too.
    const usage = parseDocsArgs([`list\u009b2J`], {})
    expect(usage.kind === 'usage-error' && usage.message).toBe(
      'docs: unknown subcommand "list\\u009b2J" (see docs --help)',
    )
  })
})
