/**
 * `e2e-col docs list|new|share|unshare|role|rename|leave|delete|accept|decline|history|restore|review` (the `e2e-col` bin hands it to
 * `e2e-col-sidecar docs`, which works too): the documents API of a running sidecar (library/api.ts)
 * for scripts. A document is named by its id or its exact title.
 * `--json` prints the API's answer; `--help` works on every subcommand.
 * Whatever came from the sidecar (titles and names from Signal, error messages) is printed through
 * {@link escapeControls}: the CLI prints no control character it did not write itself.
 */
import { escapeControls } from '@e2e-col/protocol'
import { candidates, findFailureText, findSidecar, shownAddress, sidecarBase } from './find-sidecar.ts'

export type DocsAction =
  | 'list'
  | 'new'
  | 'share'
  | 'unshare'
  | 'role'
  | 'rename'
  | 'leave'
  | 'delete'
  | 'accept'
  | 'decline'
  | 'history'
  | 'restore'
  | 'review'
  | 'agent-token'

export interface DocsCommand {
  action: DocsAction
  /** The sidecar's http base URL; undefined: the running one is found (find-sidecar.ts). */
  sidecar?: string
  /** Whose sidecar, when several run (`--as Alice`: the demo's). */
  as?: string
  json: boolean
  /** A document or invitation (id or title), where the action needs one. */
  target?: string
  title?: string
  /** A version id (`restore`). */
  version?: string
  people: string[]
  /** People who may only view (`--view`; `new`, `share`). */
  viewers?: string[]
  /** People who may comment and suggest, not edit (`--comment`; `new`, `share`). */
  commenters?: string[]
  /** The agent's name (`agent-token --name`). */
  name?: string
  /** The role given (`role`). */
  role?: 'editor' | 'commenter' | 'viewer'
  /** The member whose role changes (`role`). */
  member?: string
  /** `delete`: the person confirmed it (`--yes`); without it nothing is deleted. */
  yes?: boolean
}

const USAGE: Readonly<Record<DocsAction, string>> = {
  'agent-token':
    'docs agent-token DOC [--name NAME] [--json]\n  Mints a token with which a local program (an agent) may read the document and suggest changes, never accept or reject them (e2e-col agent token --doc DOC).',
  list: 'docs list [--json]\n  Lists your documents (title, people, last change, id) and the documents shared with you.',
  new: 'docs new TITLE [--with +NUMBER]... [--comment +NUMBER]... [--view +NUMBER]... [--json]\n  Makes a document and shares it with those people (each accepts it first): --with can edit, --comment can comment and suggest, --view can view.',
  share:
    'docs share DOC --with +NUMBER... [--comment +NUMBER]... [--view +NUMBER]... [--json]\n  Shares a document (its id or exact title) with more people: --with can edit, --comment can comment and suggest, --view can view.',
  role: 'docs role DOC +NUMBER editor|commenter|viewer [--json]\n  Makes a member an editor, a commenter (comments and suggests, never edits) or a viewer (only an editor may; `docs list` shows the roles).',
  unshare:
    'docs unshare DOC --with +NUMBER... [--json]\n  Stops sharing a document with those people: their sidecars stop receiving it.',
  rename: 'docs rename DOC NEW_TITLE [--json]\n  Renames a document for everyone in it (at most 32 characters).',
  leave: 'docs leave DOC [--json]\n  Leaves a document: you stop receiving it and it leaves your list.',
  delete:
    'docs delete DOC --yes [--json]\n  Deletes a document for everyone in it (editors only; it cannot be undone): their sidecars stop receiving it.',
  accept:
    'docs accept INVITE [--json]\n  Accepts a document shared with you (its id or title, as `docs list` shows it).',
  decline: 'docs decline INVITE [--json]\n  Declines a document shared with you.',
  history:
    'docs history DOC [--json]\n  Lists the versions of a document, newest first: when, whose changes, characters, id.',
  restore:
    'docs restore DOC VERSION [--json]\n  Makes the document equal to that version again, for everyone in it (a new change; it can be undone).',
  review:
    'docs review DOC [--json]\n  Lists the suggestions (open first: who, for whom, the change, its state, who decided) and the comment threads (the quoted text, who said what, resolved or orphaned).',
}

export const DOCS_HELP = `e2e-col docs: your documents, from a script, through the running sidecar (also\ne2e-col-sidecar docs). The home page that e2e-col up opens does the same.

${Object.values(USAGE)
  .map((u) => `  e2e-col ${u.replace(/\n/g, '\n    ')}`)
  .join('\n')}

Options of every subcommand:
  --as NAME       whose sidecar, when several run (npm start runs Alice's and Bob's: --as Alice)
  --sidecar URL   the sidecar's address, ws://HOST:PORT as the pages show it or http://HOST:PORT
                  (default: E2E_COL_SIDECAR_URL, else E2E_COL_LISTEN, else the one running:
                  e2e-col up's or npm start's)
  --json          print the API's JSON answer
  --help          this text, or one subcommand's

Exit codes: 0 done, 1 refused (the message names the code, e.g. DOCS_TITLE_TOO_LONG), 2 usage
(also: several sidecars run and none was named), 3 the sidecar does not answer (or none runs).
`

/** The help of one subcommand. */
export function docsUsage(action: DocsAction): string {
  return `Usage: e2e-col ${USAGE[action]}\n\n  --as NAME      whose sidecar, when several run (npm start: --as Alice or --as Bob)\n  --sidecar URL  the sidecar, ws://HOST:PORT or http://HOST:PORT (default: E2E_COL_SIDECAR_URL, else\n                 E2E_COL_LISTEN, else the one running)\n  --json         print the API's JSON answer\n`
}

const ACTIONS = new Set<string>(Object.keys(USAGE))

/** The sidecar URL the environment names, or undefined (then the running one is found). */
export function defaultSidecarUrl(env: Record<string, string | undefined>): string | undefined {
  const explicit = env['E2E_COL_SIDECAR_URL']
  if (explicit !== undefined && explicit !== '') return explicit
  const listen = env['E2E_COL_LISTEN']
  if (listen !== undefined && /^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/.test(listen)) {
    const host = listen.startsWith('0.0.0.0:') ? listen.replace('0.0.0.0', '127.0.0.1') : listen
    return `http://${host}`
  }
  return undefined
}

export type ParsedDocs =
  | { kind: 'docs'; command: DocsCommand }
  | { kind: 'help'; text: string }
  | { kind: 'usage-error'; message: string }

/** Parses the words after `docs`. */
export function parseDocsArgs(argv: readonly string[], env: Record<string, string | undefined>): ParsedDocs {
  const action = argv[0]
  if (action === undefined || action === '--help' || action === '-h') return { kind: 'help', text: DOCS_HELP }
  if (!ACTIONS.has(action))
    return {
      kind: 'usage-error',
      message: `docs: unknown subcommand ${escapeControls(JSON.stringify(action))} (see docs --help)`,
    }
  const a = action as DocsAction
  let sidecar = defaultSidecarUrl(env)
  let as: string | undefined
  let json = false
  let yes = false
  let name: string | undefined
  const people: string[] = []
  const viewers: string[] = []
  const commenters: string[] = []
  const words: string[] = []
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '--help' || arg === '-h') return { kind: 'help', text: docsUsage(a) }
    if (arg === '--json') json = true
    else if (arg === '--yes' && a === 'delete') yes = true
    else if (arg === '--name' && a === 'agent-token') {
      name = argv[++i]
      if (name === undefined) return { kind: 'usage-error', message: `docs ${a}: --name needs a value` }
    } else if (arg === '--sidecar' || arg === '--with' || arg === '--view' || arg === '--comment' || arg === '--as') {
      const next = argv[++i]
      if (next === undefined) return { kind: 'usage-error', message: `docs ${a}: ${arg} needs a value` }
      if (arg === '--sidecar') sidecar = next
      else if (arg === '--as') as = next
      else
        (arg === '--with' ? people : arg === '--comment' ? commenters : viewers).push(
          ...next
            .split(',')
            .map((p) => p.trim())
            .filter((p) => p !== ''),
        )
    } else if (arg.startsWith('--'))
      return {
        kind: 'usage-error',
        message: `docs ${a}: unknown option ${escapeControls(JSON.stringify(arg))} (see docs ${a} --help)`,
      }
    else words.push(arg)
  }
  const base = sidecar === undefined ? undefined : sidecarBase(sidecar)
  if (sidecar !== undefined && base === undefined)
    return {
      kind: 'usage-error',
      message: `docs ${a}: --sidecar must be an address such as ws://127.0.0.1:7601 (or http://127.0.0.1:7601)`,
    }
  if (as !== undefined && sidecar !== undefined)
    return { kind: 'usage-error', message: `docs ${a}: give --as or --sidecar, not both` }
  const want = {
    list: 0,
    new: 1,
    share: 1,
    unshare: 1,
    role: 3,
    rename: 2,
    leave: 1,
    delete: 1,
    accept: 1,
    decline: 1,
    history: 1,
    restore: 2,
    review: 1,
    'agent-token': 1,
  }[a]
  if (words.length !== want)
    return {
      kind: 'usage-error',
      message: `docs ${a}: expected ${want === 0 ? 'no' : want} argument${want === 1 ? '' : 's'}\n${docsUsage(a)}`,
    }
  if ((a === 'share' || a === 'unshare') && people.length + viewers.length + commenters.length === 0)
    return { kind: 'usage-error', message: `docs ${a}: name the people with --with +NUMBER` }
  if (a !== 'new' && a !== 'share' && a !== 'unshare' && people.length > 0)
    return { kind: 'usage-error', message: `docs ${a}: --with does not apply` }
  if (a !== 'new' && a !== 'share' && viewers.length + commenters.length > 0)
    return { kind: 'usage-error', message: `docs ${a}: ${viewers.length > 0 ? '--view' : '--comment'} does not apply` }
  if (a === 'role' && words[2] !== 'editor' && words[2] !== 'commenter' && words[2] !== 'viewer')
    return { kind: 'usage-error', message: 'docs role: the role is editor, commenter or viewer' }
  if (a === 'restore' && !/^\d{1,15}$/.test(words[1] ?? ''))
    return { kind: 'usage-error', message: 'docs restore: VERSION is a version id as `docs history` shows it' }
  // Deleting for everyone cannot be undone: a script says so explicitly.
  if (a === 'delete' && !yes)
    return {
      kind: 'usage-error',
      message: 'docs delete: this deletes the document for everyone in it and cannot be undone; add --yes to do it',
    }
  const command: DocsCommand = { action: a, json, people, viewers, ...(commenters.length > 0 && { commenters }) }
  if (a === 'delete') command.yes = true
  if (name !== undefined) command.name = name
  if (base !== undefined) command.sidecar = base
  if (as !== undefined) command.as = as
  if (a === 'new') command.title = words[0] ?? ''
  else if (a === 'rename') {
    command.target = words[0] ?? ''
    command.title = words[1] ?? ''
  } else if (a !== 'list') command.target = words[0] ?? ''
  if (a === 'restore') command.version = words[1] ?? ''
  if (a === 'role') {
    command.member = words[1] ?? ''
    command.role = words[2] === 'viewer' || words[2] === 'commenter' ? words[2] : 'editor'
  }
  return { kind: 'docs', command }
}

interface ApiAnswer {
  status: number
  json: unknown
}
/** A person as the API tells them apart (`inContacts`, `safety`: absent from older sidecars). */
type Person = { number: string; name?: string | undefined; inContacts?: boolean; safety?: string }
type Doc = {
  docId: string
  title: string
  members: (Person & { status: string; you: boolean; role?: string })[]
  lastChange: number | null
  state: string
  deletedForEveryone?: boolean
  removedBy?: Person
}
type Version = {
  id: string
  at: number
  reason?: string
  authors: { number: string; name: string | null; you?: boolean }[]
  /** On a revert: whose changes it undid. */
  undid?: { number: string; name: string | null; you?: boolean }
  chars?: number
}
type Invite = { id: string; title: string; from?: Person }
/** A suggestion as the review API lists it (review/api.ts). */
export type SuggestionShown = {
  id: string
  by?: string
  find: string
  replace: string
  note?: string
  status: string
  stale?: boolean
  decidedBy?: string
}
type Said = { id: string; by?: string; body: string; at: number }
/** A comment thread as the review API lists it (review/comment-routes.ts). */
export type ThreadShown = Said & { quote: string; orphaned: boolean; resolved: boolean; replies: Said[] }

/** Something a run refuses; `exitCode` 1 (refused) or 3 (unreachable). */
export class DocsCliError extends Error {
  readonly exitCode: number
  readonly code: string
  constructor(code: string, message: string, exitCode: number) {
    super(escapeControls(message))
    this.code = escapeControls(code)
    this.exitCode = exitCode
  }
}

/** What a failed fetch ran into: "connect ECONNREFUSED 127.0.0.1:7600" rather than "fetch failed". */
const causeOf = (error: unknown): string => {
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof Error && cause.message !== '') return cause.message
  return error instanceof Error ? error.message : String(error)
}

/** The sidecar a command talks to: the one named, else the one running (find-sidecar.ts). */
export async function sidecarOf(c: DocsCommand, cwd: string): Promise<string> {
  if (c.sidecar !== undefined) return c.sidecar
  const found = await findSidecar(candidates(cwd), c.as)
  if ('url' in found) return found.url
  const down = found.kind === 'none' || found.kind === 'stopped'
  throw new DocsCliError(down ? 'UNREACHABLE' : 'DOCS_WHICH_SIDECAR', findFailureText(found, c.action), down ? 3 : 2)
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  let res: Response
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    })
  } catch (error) {
    throw new DocsCliError(
      'UNREACHABLE',
      `the sidecar at ${shownAddress(base)} does not answer (${causeOf(error)}): start it (\`npx e2e-col up\`, or \`npm start\` for the demo), or name a running one with --sidecar`,
      3,
    )
  }
  const text = await res.text()
  const json = text === '' ? undefined : (JSON.parse(text) as unknown)
  if (!res.ok) {
    const e = (json as { error?: { code?: string; message?: string } } | undefined)?.error
    throw new DocsCliError(e?.code ?? `HTTP_${res.status}`, e?.message ?? `HTTP ${res.status}`, 1)
  }
  return { status: res.status, json }
}

/** "changed 2026-12-01 14:03 UTC" or "no changes yet". */
const changedText = (at: number | null): string =>
  at === null ? 'no changes yet' : `changed ${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** A template literal whose every value is escaped (escaping twice changes nothing). */
const shown = (strings: TemplateStringsArray, ...values: unknown[]): string =>
  strings.reduce((text, part, i) => `${text}${escapeControls(String(values[i - 1]))}${part}`)
/** One JSON line: JSON.stringify escapes C0 controls; C1, bidi controls and separators are escaped too. */
const jsonLine = (value: unknown): string => `${escapeControls(JSON.stringify(value))}\n`
/** "Frank (+4915…)", with "not in your contacts" and a changed safety number said (told-apart.ts's rule, with the whole number). */
const who = (p: Person): string => {
  const notes = [
    ...(p.inContacts === false && p.name !== undefined && p.name !== '' ? ['not in your contacts'] : []),
    ...(p.safety === 'changed' ? ['safety number changed'] : []),
  ]
  const base = p.name === undefined || p.name === '' ? p.number : `${p.name} (${p.number})`
  return notes.length === 0 ? shown`${base}` : shown`${base} [${notes.join(', ')}]`
}

/** What a version was for, when it is not plain editing (the History panel's words). */
const REASONS: Readonly<Record<string, string>> = {
  restore: 'restored an earlier version',
  revert: 'undid changes',
  'catch-up': 'arrived together',
  start: 'as first kept here',
}

/**
 * One line per version: "2026-12-01 14:03:07 UTC  ·  you, Bob (+4915…)  ·  1204 characters  ·  17",
 * with a restore or an undo said. A version with no author and no text (kept before any content
 * arrived) says nothing and is left out.
 */
export function versionLines(versions: readonly Version[]): string {
  const shownVersions = versions.filter((v) => v.authors.length > 0 || (v.chars ?? 0) > 0)
  if (shownVersions.length === 0) return 'no versions yet'
  return shownVersions
    .map((v) => {
      const when = `${new Date(v.at).toISOString().slice(0, 19).replace('T', ' ')} UTC`
      // Content relayed in a sync answer has no author: it is the group's.
      const people =
        v.authors.length === 0
          ? 'changes from the group'
          : v.authors
              .map((p) => (p.you === true ? 'you' : who({ number: p.number, name: p.name ?? undefined })))
              .join(', ')
      const undid =
        v.undid === undefined
          ? undefined
          : v.undid.you === true
            ? 'your'
            : `${who({ number: v.undid.number, name: v.undid.name ?? undefined })}'s`
      const why =
        v.reason === 'revert' && undid !== undefined
          ? `undid ${undid} changes`
          : v.reason === undefined
            ? undefined
            : REASONS[v.reason]
      const chars = v.chars === undefined ? '' : `  ·  ${v.chars} characters`
      return shown`${when}  ·  ${people}${why === undefined ? '' : `  ·  ${why}`}${chars}  ·  ${v.id}`
    })
    .join('\n')
}

/** Text from the document on one line, cut to `max` characters. */
const oneLine = (text: string, max = 60): string => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return [...flat].length <= max ? flat : `${[...flat].slice(0, max - 1).join('')}…`
}
const whenOf = (at: number): string => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`

/**
 * `docs review`: the suggestions, open ones first ("1. open · Claude, for Alice · “long hike” →
 * “walk” · note: shorter · id"), then each comment thread under its quote with its replies.
 */
export function reviewLines(suggestions: readonly SuggestionShown[], threads: readonly ThreadShown[]): string {
  const lines = ['Suggestions']
  const ordered = [...suggestions].sort((a, b) => Number(b.status === 'open') - Number(a.status === 'open'))
  if (ordered.length === 0) lines.push('  (none)')
  ordered.forEach((s, i) => {
    const state = s.status === 'open' && s.stale === true ? 'open, stale (the text changed)' : s.status
    const decided = s.decidedBy === undefined ? '' : shown` by ${s.decidedBy}`
    const change =
      s.find === ''
        ? shown`insert “${oneLine(s.replace)}”`
        : s.replace === ''
          ? shown`delete “${oneLine(s.find)}”`
          : shown`“${oneLine(s.find)}” → “${oneLine(s.replace)}”`
    const note = s.note === undefined || s.note === '' ? '' : shown`  ·  note: ${oneLine(s.note)}`
    lines.push(shown`  ${i + 1}. ${state}${decided}  ·  ${s.by ?? 'someone'}  ·  ${change}${note}  ·  ${s.id}`)
  })
  lines.push('Comments')
  if (threads.length === 0) lines.push('  (none)')
  for (const t of threads) {
    const marks = [...(t.resolved ? ['resolved'] : []), ...(t.orphaned ? ['its text was deleted'] : [])]
    lines.push(shown`  “${oneLine(t.quote)}”${marks.length === 0 ? '' : ` [${marks.join(', ')}]`}  ·  ${t.id}`)
    for (const said of [t, ...t.replies])
      lines.push(shown`    ${said.by ?? 'someone'}, ${whenOf(said.at)}: ${oneLine(said.body, 200)}`)
  }
  return lines.join('\n')
}

/** A viewer's mark in `docs list` (editors, and people of a group without roles, carry none). */
const roleNote = (role: string | undefined): string =>
  role === 'viewer' ? ' [can view]' : role === 'commenter' ? ' [can comment]' : ''

/** What `docs list` says of this account's own role (an editor's says nothing). */
const youCan = (role: string | undefined): string =>
  role === 'viewer' ? '  ·  you can view' : role === 'commenter' ? '  ·  you can comment' : ''

/** The people of `new`/`share` as the API takes them: editors by number, viewers with their role. */
const sharedWith = (c: DocsCommand): unknown[] => [
  ...c.people,
  ...(c.viewers ?? []).map((number) => ({ number, role: 'viewer' })),
  ...(c.commenters ?? []).map((number) => ({ number, role: 'commenter' })),
]

/**
 * Runs one docs command; returns what to print. Without a named sidecar the running one is found
 * from `cwd` (the demo's file is looked for from there up).
 * @throws DocsCliError
 */
export async function runDocsCommand(c: DocsCommand, cwd: string = process.cwd()): Promise<string> {
  const base = await sidecarOf(c, cwd)
  const resolve = async (target: string, kind: 'doc' | 'invite'): Promise<string> => {
    if (UUID.test(target)) return target.toLowerCase()
    const list =
      kind === 'doc'
        ? ((await api(base, 'GET', '/v1/docs')).json as { documents: Doc[] }).documents.map((d) => ({
            id: d.docId,
            title: d.title,
          }))
        : ((await api(base, 'GET', '/v1/invites')).json as { invites: Invite[] }).invites.map((i) => ({
            id: i.id,
            title: i.title,
          }))
    const hits = list.filter((d) => d.title === target)
    if (hits.length === 1 && hits[0] !== undefined) return hits[0].id
    throw new DocsCliError(
      kind === 'doc' ? 'DOCS_UNKNOWN_DOCUMENT' : 'DOCS_UNKNOWN_INVITE',
      hits.length === 0
        ? `no ${kind === 'doc' ? 'document' : 'invitation'} titled ${JSON.stringify(target)}`
        : `${hits.length} documents are titled ${JSON.stringify(target)}: name one by its id`,
      1,
    )
  }
  const out = (answer: unknown, text: string): string => (c.json ? jsonLine(answer ?? {}) : `${text}\n`)
  switch (c.action) {
    case 'list': {
      const docs = (await api(base, 'GET', '/v1/docs')).json as { you: string; documents: Doc[] }
      const invites = ((await api(base, 'GET', '/v1/invites')).json as { invites: Invite[] }).invites
      if (c.json) return jsonLine({ ...docs, invites })
      const lines = ['Your documents']
      if (docs.documents.length === 0) lines.push('  (none)')
      for (const d of docs.documents) {
        const others = d.members
          .filter((m) => !m.you)
          .map((m) => (m.status === 'member' ? who(m) : shown`${who(m)} [${m.status}]`) + roleNote(m.role))
        const state =
          d.state === 'removed'
            ? d.deletedForEveryone === true
              ? `deleted for everyone${d.removedBy === undefined ? '' : d.removedBy.number === docs.you ? ' by you' : shown` by ${who(d.removedBy)}`}`
              : 'you are no longer in it'
            : (others.length === 0 ? 'only you' : `with ${others.join(', ')}`) +
              youCan(d.members.find((m) => m.you)?.role)
        lines.push(shown`  ${d.title}  ·  ${state}  ·  ${changedText(d.lastChange)}  ·  ${d.docId}`)
      }
      lines.push('Shared with you')
      if (invites.length === 0) lines.push('  (none)')
      for (const i of invites)
        lines.push(
          shown`  ${i.from === undefined ? 'Someone' : who(i.from)} shared '${i.title}' with you  ·  accept: e2e-col docs accept ${i.id}`,
        )
      return `${lines.join('\n')}\n`
    }
    case 'new': {
      const r = await api(base, 'POST', '/v1/docs', { title: c.title, members: sharedWith(c) })
      const made = r.json as { docId: string }
      return out(
        r.json,
        shown`made '${c.title ?? ''}' (${made.docId})${c.people.length === 0 ? '' : `; shared with ${c.people.join(', ')} (each accepts it first)`}`,
      )
    }
    case 'share':
    case 'unshare': {
      const id = await resolve(c.target ?? '', 'doc')
      const r = await api(
        base,
        'POST',
        `/v1/docs/${id}/members`,
        c.action === 'share' ? { add: sharedWith(c) } : { remove: c.people },
      )
      return out(
        r.json,
        shown`${c.action === 'share' ? 'shared with' : 'no longer shared with'} ${[...c.people, ...(c.viewers ?? []), ...(c.commenters ?? [])].join(', ')}`,
      )
    }
    case 'role': {
      const id = await resolve(c.target ?? '', 'doc')
      const r = await api(base, 'PATCH', `/v1/docs/${id}/members/${encodeURIComponent(c.member ?? '')}`, {
        role: c.role,
      })
      return out(
        r.json,
        shown`${c.member} ${c.role === 'viewer' ? 'can view' : c.role === 'commenter' ? 'can comment' : 'can edit'}`,
      )
    }
    case 'agent-token': {
      const id = await resolve(c.target ?? '', 'doc')
      const r = await api(base, 'POST', '/v1/agent-tokens', { docs: [id], name: c.name ?? 'Agent' })
      return out(r.json, (r.json as { token: string }).token)
    }
    case 'rename': {
      const id = await resolve(c.target ?? '', 'doc')
      const r = await api(base, 'PATCH', `/v1/docs/${id}`, { title: c.title })
      return out(r.json, shown`renamed to '${(r.json as Doc).title}'`)
    }
    case 'leave': {
      const id = await resolve(c.target ?? '', 'doc')
      await api(base, 'DELETE', `/v1/docs/${id}`, {})
      return out({ docId: id, left: true }, 'left the document')
    }
    case 'delete': {
      const id = await resolve(c.target ?? '', 'doc')
      const r = await api(base, 'POST', `/v1/docs/${id}/delete-for-everyone`, {})
      return out(r.json, 'deleted the document for everyone in it')
    }
    case 'history': {
      const id = await resolve(c.target ?? '', 'doc')
      const r = await api(base, 'GET', `/v1/docs/${id}/versions?limit=100`)
      return out(r.json, versionLines((r.json as { versions: Version[] }).versions))
    }
    case 'review': {
      const id = await resolve(c.target ?? '', 'doc')
      const suggestions = (await api(base, 'GET', `/v1/docs/${id}/suggestions`)).json as {
        suggestions: SuggestionShown[]
      }
      const comments = (await api(base, 'GET', `/v1/docs/${id}/comments`)).json as { comments: ThreadShown[] }
      return out({ ...suggestions, ...comments }, reviewLines(suggestions.suggestions, comments.comments))
    }
    case 'restore': {
      const id = await resolve(c.target ?? '', 'doc')
      const r = await api(base, 'POST', `/v1/docs/${id}/versions/${c.version ?? ''}/restore`, {})
      return out(
        r.json,
        shown`restored version ${c.version}; the restore is version ${(r.json as { version: string }).version}`,
      )
    }
    case 'accept':
    case 'decline': {
      const id = await resolve(c.target ?? '', 'invite')
      const r = await api(base, 'POST', `/v1/invites/${id}/${c.action}`, {})
      return out(
        r.json ?? { id, declined: true },
        c.action === 'accept' ? shown`accepted (${(r.json as { docId: string }).docId})` : 'declined',
      )
    }
  }
}
