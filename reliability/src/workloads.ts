/**
 * What the soak's authors type. A trace author applies its own transactions, in order, each once
 * its `parents` are in its live document; a random author inserts unique tokens at token
 * boundaries and deletes some of its own earlier tokens.
 */
import * as Y from 'yjs'
import type { Page } from './page.ts'
import type { Rng } from './rng.ts'
import type { PreparedTrace, TraceTxn } from './trace.ts'

/** Origin of the soak's typing: local to the page, so the binding sends it. */
export const TYPING = Symbol('soak typing')

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Resolves when `ready()` holds for the page's current document; rejects after `stallMs` in which
 * the document did not change at all (another author may legitimately type for minutes first).
 */
async function until(page: Page, ready: () => boolean, stallMs: number, what: () => string): Promise<void> {
  let deadline = Date.now() + stallMs
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`stalled: nothing arrived for ${stallMs} ms while waiting for ${what()}`)
    const changed = await new Promise<boolean>((resolve) => {
      const doc = page.doc
      const done = (update: boolean) => {
        doc.off('update', onUpdate)
        clearTimeout(t)
        resolve(update)
      }
      const onUpdate = () => done(true)
      const t = setTimeout(() => done(false), 50)
      doc.on('update', onUpdate)
    })
    if (changed) deadline = Date.now() + stallMs
  }
}

export interface AuthorHooks {
  /** Called with the fraction typed so far, between two edits; may await (a reload). */
  progress(author: number, fraction: number): Promise<void>
  /** Called just before a random author pastes a large block. */
  beforeLargePaste?(author: number): void
}

/** One edit in this many of a random author is a large paste (several Signal bodies before deflate). */
const LARGE_PASTE_EVERY = 40
/** Random hex characters in a large paste: about 3 KB once deflated, more than one 2000-byte body. */
const LARGE_PASTE_HEX = 6000

export async function typeTrace(
  page: Page,
  agent: number,
  trace: PreparedTrace,
  hooks: AuthorHooks,
  stallMs: number,
): Promise<void> {
  const own = trace.txns.filter((t) => t.agent === agent)
  const held = (t: TraceTxn) => Y.getState(page.doc.store, t.client) >= t.clock
  for (let i = 0; i < own.length; i++) {
    const txn = own[i] as TraceTxn
    const parents = txn.parents.map((p) => trace.txns[p] as TraceTxn)
    await until(
      page,
      () => parents.every(held),
      stallMs,
      () => {
        const missing = parents
          .filter((p) => !held(p))
          .map(
            (p) =>
              `agent ${p.agent} clock ${p.clock} (has ${Y.getState(page.doc.store, p.client)}${page.doc.store.pendingStructs === null ? '' : ', updates pending'})`,
          )
        return `${page.name}: parents of its transaction ${i}/${own.length}: ${missing.join(', ')}; outbox ${page.conn.status().pending}, connection ${page.conn.status().connection}`
      },
    )
    Y.applyUpdate(page.doc, txn.update, TYPING)
    if (i % 25 === 24) await sleep(2)
    await hooks.progress(agent, (i + 1) / own.length)
  }
}

/** The tokens a random author wrote and deleted; the final text must hold exactly the live ones. */
export interface RandomLedger {
  inserted: string[]
  deleted: Set<string>
}

export async function typeRandom(
  page: Page,
  author: number,
  edits: number,
  rng: Rng,
  hooks: AuthorHooks,
): Promise<RandomLedger> {
  const ledger: RandomLedger = { inserted: [], deleted: new Set() }
  for (let i = 0; i < edits; i++) {
    const text = page.doc.getText('t')
    const alive = ledger.inserted.filter((t) => !ledger.deleted.has(t))
    const s = text.toString()
    // A fixed number of draws per edit, so what one edit finds (remote text) never shifts the next one's numbers.
    const [kind, which, pause, large] = [rng(), rng(), rng(), rng()]
    if (alive.length > 3 && kind < 0.2) {
      const token = alive[Math.floor(which * alive.length)] as string
      const at = s.indexOf(token)
      if (at >= 0) {
        page.doc.transact(() => text.delete(at, token.length), TYPING)
        ledger.deleted.add(token)
      }
    } else {
      const boundaries = [0]
      for (let k = 0; k < s.length; k++) if (s[k] === ']') boundaries.push(k + 1)
      const at = boundaries[Math.floor(which * boundaries.length)] ?? 0
      const paste = large * LARGE_PASTE_EVERY < 1
      let token = `[${author}.${i}]`
      if (paste) {
        let hex = ''
        while (hex.length < LARGE_PASTE_HEX)
          hex += Math.floor(rng() * 0x1_0000_0000)
            .toString(16)
            .padStart(8, '0')
        token = `[${author}.${i}:${hex}]`
        hooks.beforeLargePaste?.(author)
      }
      page.doc.transact(() => text.insert(at, token), TYPING)
      ledger.inserted.push(token)
    }
    await sleep(5 + Math.floor(pause * 30))
    await hooks.progress(author, (i + 1) / edits)
  }
  return ledger
}

/** Why `text` does not hold exactly the live tokens of `ledgers`, or undefined when it does. */
export function checkRandomText(text: string, ledgers: readonly RandomLedger[]): string | undefined {
  let expectedLength = 0
  for (const l of ledgers) {
    for (const token of l.inserted) {
      const n = text.split(token).length - 1
      if (l.deleted.has(token)) {
        if (n !== 0) return `deleted token ${token} still present`
      } else {
        if (n !== 1) return `token ${token} present ${n} times`
        expectedLength += token.length
      }
    }
  }
  return text.length === expectedLength ? undefined : `text has ${text.length} chars, the live tokens ${expectedLength}`
}
