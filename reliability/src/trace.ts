/**
 * Concurrent editing traces (josephg/editing-traces format) turned into per-transaction Yjs
 * updates. Each agent edits a shadow Y.Doc that holds exactly the causal closure of the
 * transaction's `parents`, so the trace's positions are right; the soak's live authors then apply
 * those updates as local edits, each only once its parents are present in the live document.
 */
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import * as Y from 'yjs'
import { z } from 'zod'

export const TRACE_DIR = new URL('../../../shared/data/editing-traces/', import.meta.url)

const Trace = z.object({
  endContent: z.string(),
  numAgents: z.number().int().min(1),
  txns: z.array(
    z.object({
      parents: z.array(z.number().int().nonnegative()),
      agent: z.number().int().nonnegative(),
      patches: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative(), z.string()])),
    }),
  ),
})

export interface TraceTxn {
  readonly agent: number
  readonly parents: readonly number[]
  /** The Yjs update the agent's edit produced. */
  readonly update: Uint8Array
  /** The agent's Yjs client id and its clock after this transaction: present iff sv[client] >= clock. */
  readonly client: number
  readonly clock: number
}

export interface PreparedTrace {
  readonly name: string
  readonly numAgents: number
  readonly txns: readonly TraceTxn[]
  /** The text every replica must end with. */
  readonly endContent: string
}

/** Yjs client ids of the trace's agents; live documents use random 32-bit ids, so no clash in practice. */
export const agentClientId = (agent: number): number => 0x7e2e0000 + agent

/**
 * Loads `name` (e.g. `concurrent_friendsforever`) and prepares its first `limit` transactions
 * (a prefix of a topologically ordered trace is closed under `parents`).
 */
export function prepareTrace(name: string, limit = Number.POSITIVE_INFINITY): PreparedTrace {
  const raw = Trace.parse(JSON.parse(gunzipSync(readFileSync(new URL(`${name}.json.gz`, TRACE_DIR))).toString('utf8')))
  const count = Math.min(limit, raw.txns.length)
  const shadows = Array.from({ length: raw.numAgents }, (_, agent) => {
    const doc = new Y.Doc({ gc: false })
    doc.clientID = agentClientId(agent)
    return { doc, text: doc.getText('t'), applied: new Set<number>() }
  })
  const txns: TraceTxn[] = []
  for (let i = 0; i < count; i++) {
    const t = raw.txns[i]
    const shadow = t === undefined ? undefined : shadows[t.agent]
    if (t === undefined || shadow === undefined) throw new Error(`trace ${name}: bad transaction ${i}`)
    // Bring the shadow to exactly the closure of the parents (ancestors first).
    const stack = [...t.parents]
    const order: number[] = []
    const seen = new Set<number>()
    while (stack.length > 0) {
      const p = stack.pop() as number
      if (shadow.applied.has(p) || seen.has(p)) continue
      if (p >= i) throw new Error(`trace ${name}: transaction ${i} has a later parent ${p}`)
      seen.add(p)
      order.push(p)
      stack.push(...(raw.txns[p]?.parents ?? []))
    }
    order.sort((x, y) => x - y)
    for (const p of order) {
      const prior = txns[p]
      if (prior === undefined) throw new Error(`trace ${name}: missing parent ${p}`)
      Y.applyUpdate(shadow.doc, prior.update)
      shadow.applied.add(p)
    }
    const before = Y.encodeStateVector(shadow.doc)
    shadow.doc.transact(() => {
      for (const [pos, del, ins] of t.patches) {
        if (pos + del > shadow.text.length) throw new Error(`trace ${name}: patch out of range at ${i}`)
        if (del > 0) shadow.text.delete(pos, del)
        if (ins !== '') shadow.text.insert(pos, ins)
      }
    })
    shadow.applied.add(i)
    const client = agentClientId(t.agent)
    txns.push({
      agent: t.agent,
      parents: t.parents,
      update: Y.encodeStateAsUpdate(shadow.doc, before),
      client,
      clock: Y.getState(shadow.doc.store, client),
    })
  }
  const merged = new Y.Doc()
  for (const t of txns) Y.applyUpdate(merged, t.update)
  const text = merged.getText('t').toString()
  if (count === raw.txns.length && text !== raw.endContent)
    throw new Error(`trace ${name}: replay does not reproduce endContent`)
  return { name, numAgents: raw.numAgents, txns, endContent: count === raw.txns.length ? raw.endContent : text }
}

/** True when `doc` holds transaction `t` (its agent's clock has reached it). */
export function holds(sv: Map<number, number>, t: TraceTxn): boolean {
  return (sv.get(t.client) ?? 0) >= t.clock
}
