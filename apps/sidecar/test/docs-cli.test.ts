/**
 * `e2e-col-sidecar docs …`: argument parsing, every subcommand against a running sidecar, and the
 * binary's help and exit codes.
 */
import { describe, expect, it } from 'vitest'
import { parseArgs } from '../src/cli/cli.ts'
import {
  DocsCliError,
  parseDocsArgs,
  reviewLines,
  runDocsCommand,
  versionLines,
  type DocsCommand,
} from '../src/cli/docs-cli.ts'
import { runSidecar } from './child-sidecar.ts'
import { ALICE, BOB, librarySidecar, startPeopleToy } from './docs-api.ts'
import { poll } from './harness.ts'

const parsed = (argv: string[], env: Record<string, string> = {}): DocsCommand => {
  const r = parseDocsArgs(argv, env)
  if (r.kind !== 'docs') throw new Error(`expected a command, got ${JSON.stringify(r)}`)
  return r.command
}

const usageError = (argv: string[]): string => {
  const r = parseDocsArgs(argv, {})
  return r.kind === 'usage-error' ? r.message : ''
}

describe('docs arguments', () => {
  it('reads each subcommand, its target, title and people, and the sidecar from the environment', () => {
    expect(
      parsed(['new', 'Trip plan', '--with', `${BOB},+15555550103`, '--json'], { E2E_COL_LISTEN: '127.0.0.1:7601' }),
    ).toEqual({
      action: 'new',
      sidecar: 'http://127.0.0.1:7601',
      json: true,
      title: 'Trip plan',
      people: [BOB, '+15555550103'],
      viewers: [],
    })
    expect(parsed(['rename', 'Trip plan', 'Trip 2027', '--sidecar', 'http://127.0.0.1:9/'])).toMatchObject({
      target: 'Trip plan',
      title: 'Trip 2027',
      sidecar: 'http://127.0.0.1:9',
    })
    expect(parsed(['list'], { E2E_COL_SIDECAR_URL: 'http://localhost:7700' }).sidecar).toBe('http://localhost:7700')
    // Nothing named: the running one is found when the command runs (find-sidecar.ts).
    expect(parsed(['list']).sidecar).toBeUndefined()
  })

  it('takes the address as the pages show it (ws://) as well as http://, and --as a name', () => {
    expect(parsed(['list', '--sidecar', 'ws://127.0.0.1:7601']).sidecar).toBe('http://127.0.0.1:7601')
    expect(parsed(['list', '--sidecar', 'WSS://example.test:443/']).sidecar).toBe('https://example.test:443')
    expect(parsed(['list', '--sidecar', 'http://[::1]:7601']).sidecar).toBe('http://[::1]:7601')
    expect(parsed(['list', '--as', 'Bob'])).toMatchObject({ as: 'Bob' })
    expect(parsed(['list', '--as', 'Bob']).sidecar).toBeUndefined()
    expect(usageError(['list', '--sidecar', 'ws://127.0.0.1:7601/v1/docs/x'])).toContain('ws://127.0.0.1:7601')
    expect(usageError(['list', '--as', 'Bob', '--sidecar', 'ws://127.0.0.1:7601'])).toContain('not both')
  })

  it('reads roles: --view on new and share, and docs role DOC +NUMBER editor|viewer', () => {
    expect(parsed(['share', 'Trip plan', '--view', BOB])).toMatchObject({ people: [], viewers: [BOB] })
    expect(parsed(['new', 'Trip plan', '--with', BOB, '--view', '+15555550103'])).toMatchObject({
      people: [BOB],
      viewers: ['+15555550103'],
    })
    expect(parsed(['role', 'Trip plan', BOB, 'viewer', '--json'])).toMatchObject({
      action: 'role',
      target: 'Trip plan',
      member: BOB,
      role: 'viewer',
      json: true,
    })
    expect(usageError(['role', 'Trip plan', BOB, 'owner'])).toContain('editor, commenter or viewer')
    expect(parsed(['role', 'Trip plan', BOB, 'commenter'])).toMatchObject({ role: 'commenter' })
    expect(parsed(['share', 'Trip plan', '--comment', BOB])).toMatchObject({ people: [], commenters: [BOB] })
    expect(usageError(['role', 'Trip plan', BOB])).toContain('expected 3 arguments')
    expect(usageError(['rename', 'Trip', 'Trip 2', '--view', BOB])).toContain('does not apply')
    const help = parseDocsArgs(['role', '--help'], {})
    expect(help.kind === 'help' && help.text.startsWith('Usage: e2e-col docs role')).toBe(true)
  })

  it('history names you and the others, says a restore and an undo, and leaves out versions with nothing in them', () => {
    const at = Date.UTC(2026, 11, 1, 14, 3, 7)
    const me = { number: ALICE, name: null, you: true }
    const bob = { number: BOB, name: 'Bob', you: false }
    expect(
      versionLines([
        { id: '5', at, reason: 'revert', authors: [me], undid: bob, chars: 12 },
        { id: '4', at, reason: 'revert', authors: [me], chars: 12 },
        { id: '3', at, reason: 'restore', authors: [bob], chars: 12 },
        { id: '2', at, reason: 'quiet', authors: [me, bob], chars: 30 },
        { id: '1', at, reason: 'catch-up', authors: [], chars: 0 },
      ]),
    ).toBe(
      [
        `2026-12-01 14:03:07 UTC  ·  you  ·  undid Bob (${BOB})'s changes  ·  12 characters  ·  5`,
        '2026-12-01 14:03:07 UTC  ·  you  ·  undid changes  ·  12 characters  ·  4',
        `2026-12-01 14:03:07 UTC  ·  Bob (${BOB})  ·  restored an earlier version  ·  12 characters  ·  3`,
        `2026-12-01 14:03:07 UTC  ·  you, Bob (${BOB})  ·  30 characters  ·  2`,
      ].join('\n'),
    )
    expect(versionLines([{ id: '1', at, reason: 'catch-up', authors: [], chars: 0 }])).toBe('no versions yet')
    expect(versionLines([{ id: '1', at, reason: 'catch-up', authors: [], chars: 5 }])).toContain(
      'changes from the group  ·  arrived together  ·  5 characters',
    )
  })

  it('review lists open suggestions first with who decided the others, then each thread under its quote', () => {
    const at = Date.UTC(2026, 11, 6, 9, 30)
    const text = reviewLines(
      [
        { id: 's1', by: 'you', find: 'museum', replace: 'gallery', status: 'accepted', decidedBy: 'Bob (…0102)' },
        { id: 's2', by: 'Claude, for you', find: 'long hike', replace: 'walk', note: 'shorter', status: 'open' },
        { id: 's3', by: 'Carol', find: 'picnic', replace: '', status: 'open', stale: true },
      ],
      [
        {
          id: 'c1',
          by: 'Carol',
          body: 'too\nlong?',
          at,
          quote: 'long hike',
          orphaned: true,
          resolved: true,
          replies: [{ id: 'r1', by: 'you', body: 'agreed', at }],
        },
      ],
    )
    expect(text.split('\n')).toEqual([
      'Suggestions',
      '  1. open  ·  Claude, for you  ·  “long hike” → “walk”  ·  note: shorter  ·  s2',
      '  2. open, stale (the text changed)  ·  Carol  ·  delete “picnic”  ·  s3',
      '  3. accepted by Bob (…0102)  ·  you  ·  “museum” → “gallery”  ·  s1',
      'Comments',
      '  “long hike” [resolved, its text was deleted]  ·  c1',
      '    Carol, 2026-12-06 09:30 UTC: too long?',
      '    you, 2026-12-06 09:30 UTC: agreed',
    ])
    expect(reviewLines([], [])).toBe('Suggestions\n  (none)\nComments\n  (none)')
    // Text from the document prints no control character.
    expect(reviewLines([{ id: 's', find: 'a\u001b[31m', replace: 'b', status: 'open' }], [])).not.toContain('\u001b')
  })

  it('answers --help on every subcommand and refuses what does not fit', () => {
    for (const action of [
      'list',
      'new',
      'share',
      'unshare',
      'rename',
      'leave',
      'delete',
      'accept',
      'decline',
      'history',
      'restore',
      'review',
    ]) {
      const r = parseDocsArgs([action, '--help'], {})
      expect(r.kind === 'help' && r.text.startsWith(`Usage: e2e-col docs ${action}`)).toBe(true)
    }
    expect(parseDocsArgs(['--help'], {}).kind).toBe('help')
    expect(usageError(['open'])).toContain('unknown subcommand')
    expect(usageError(['new'])).toContain('expected 1 argument')
    expect(usageError(['share', 'Trip'])).toContain('--with')
    expect(usageError(['leave', 'Trip', '--with', BOB])).toContain('does not apply')
    expect(usageError(['list', '--sidecar', 'ftp://x'])).toContain('such as ws://127.0.0.1:7601')
    expect(usageError(['list', '--force'])).toContain('unknown option')
    // Deleting for everyone takes --yes; elsewhere --yes is no option.
    expect(usageError(['delete', 'Trip'])).toContain('cannot be undone; add --yes')
    expect(usageError(['leave', 'Trip', '--yes'])).toContain('unknown option')
    const del = parseDocsArgs(['delete', 'Trip', '--yes'], {})
    expect(del.kind === 'docs' && [del.command.target, del.command.yes]).toEqual(['Trip', true])
    const inspect = parseArgs(['inspect', '--help'])
    expect(inspect.kind === 'help' && inspect.text?.startsWith('Usage: e2e-col-sidecar inspect')).toBe(true)
  })
})

/** One docs command against the sidecar at `s`. */
const asSidecar = (s: { url: string }, argv: string[]) => runDocsCommand(parsed([...argv, '--sidecar', s.url]))

describe('docs against a running sidecar', () => {
  it('makes, lists, shares, renames, unshares and leaves a document; accepts an invitation by title; reports API codes', async () => {
    // Alice and Bob have each other in their contacts; Carol is no one's contact.
    const toy = await startPeopleToy({ contacts: { [ALICE]: { [BOB]: 'Bob' }, [BOB]: { [ALICE]: 'Alice' } } })
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const as = (s: { url: string }, argv: string[]) => runDocsCommand(parsed([...argv, '--sidecar', s.url]))

    const made = JSON.parse(await as(alice, ['new', 'Trip plan', '--json'])) as { docId: string }
    expect(await as(alice, ['list'])).toMatch(
      new RegExp(`Trip plan {2}· {2}only you {2}· {2}no changes yet {2}· {2}${made.docId}`),
    )
    expect(await as(alice, ['share', 'Trip plan', '--with', BOB])).toBe(`shared with ${BOB}\n`)
    expect(await as(bob, ['list'])).toContain(`Alice (${ALICE}) shared 'Trip plan' with you`)
    expect(await as(alice, ['list'])).toContain(`with Bob (${BOB}) [invited]  ·`)
    expect(await as(bob, ['accept', 'Trip plan'])).toBe(`accepted (${made.docId})\n`)
    await poll(async () => (await as(alice, ['list'])).includes(`with Bob (${BOB})  ·`), 'Bob listed as joined')
    expect(await as(alice, ['rename', made.docId, 'Trip 2027'])).toBe("renamed to 'Trip 2027'\n")
    expect(JSON.parse(await as(bob, ['list', '--json'])).documents[0].title).toBe('Trip 2027')
    await as(alice, ['unshare', 'Trip 2027', '--with', BOB])
    expect(await as(alice, ['leave', 'Trip 2027'])).toBe('left the document\n')

    const refused = await as(alice, ['new', 'x'.repeat(40)]).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(DocsCliError)
    expect([(refused as DocsCliError).code, (refused as DocsCliError).exitCode]).toEqual(['DOCS_TITLE_TOO_LONG', 1])
    const unknown = await as(alice, ['leave', 'No such title']).catch((e: unknown) => e)
    expect((unknown as DocsCliError).code).toBe('DOCS_UNKNOWN_DOCUMENT')
    const gone = await runDocsCommand(parsed(['list', '--sidecar', 'http://127.0.0.1:9'])).catch((e: unknown) => e)
    expect((gone as DocsCliError).exitCode).toBe(3)
  }, 30_000)

  it("deletes a document for everyone: Bob's list says who deleted it", async () => {
    const toy = await startPeopleToy({ contacts: { [BOB]: { [ALICE]: 'Alice' } } })
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const as = asSidecar
    await as(alice, ['new', 'Trip plan', '--with', BOB])
    await poll(async () => (await as(bob, ['list'])).includes("shared 'Trip plan'"), "Bob's invitation")
    await as(bob, ['accept', 'Trip plan'])
    expect(await as(alice, ['delete', 'Trip plan', '--yes'])).toBe('deleted the document for everyone in it\n')
    await poll(
      async () => (await as(bob, ['list'])).includes(`Trip plan  ·  deleted for everyone by Alice (${ALICE})`),
      'Bob sees the deletion',
    )
    expect(await as(alice, ['list'])).toContain(`Trip plan  ·  deleted for everyone by you  ·`)
  }, 30_000)

  it('the binary prints help for docs subcommands and inspect, exits 2 on a usage error and 3 when no sidecar answers', async () => {
    const help = await runSidecar({}, ['docs', 'share', '--help'])
    expect([help.code, help.stdout.split('\n')[0]]).toEqual([
      0,
      'Usage: e2e-col docs share DOC --with +NUMBER... [--comment +NUMBER]... [--view +NUMBER]... [--json]',
    ])
    const inspect = await runSidecar({}, ['inspect', '--help'])
    expect([inspect.code, inspect.stdout.split('\n')[0]]).toEqual([
      0,
      'Usage: e2e-col-sidecar inspect --doc UUID [--data-dir DIR] [--json]',
    ])
    expect((await runSidecar({}, ['docs', 'new'])).code).toBe(2)
    const down = await runSidecar({}, ['docs', 'list', '--json', '--sidecar', 'http://127.0.0.1:9'])
    expect(down.code).toBe(3)
    expect(JSON.parse(down.stderr).error.code).toBe('UNREACHABLE')
  }, 60_000)
})
