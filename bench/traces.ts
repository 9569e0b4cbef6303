/** The shared editing traces (josephg/editing-traces) and how a keystroke is applied to a Y.Text. */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import type * as Y from 'yjs'

const DIR = new URL('../../shared/data/editing-traces/', import.meta.url)

export interface SequentialTrace {
  readonly startContent: string
  readonly endContent: string
  readonly txns: readonly { readonly time?: string; readonly patches: readonly (readonly [number, number, string])[] }[]
}

export interface TimedTrace {
  /** `agent`: the author, in the concurrent traces. */
  readonly txns: readonly { readonly time?: string; readonly agent?: number }[]
}

export function tracePath(name: string): string {
  return fileURLToPath(new URL(`${name}.json.gz`, DIR))
}

export function traceExists(name: string): boolean {
  return existsSync(tracePath(name))
}

export function loadTrace<T = SequentialTrace>(name: string): T {
  return JSON.parse(gunzipSync(readFileSync(tracePath(name))).toString('utf8')) as T
}

/** Applies one transaction's patches (trace positions are code points; the traces used are BMP-only). */
export function applyPatches(text: Y.Text, patches: SequentialTrace['txns'][number]['patches']): void {
  for (const [pos, del, ins] of patches) {
    if (del > 0) text.delete(pos, del)
    if (ins !== '') text.insert(pos, ins)
  }
}

/** Characters a transaction deletes (to count operations: inserted + deleted characters). */
export function deletedChars(patches: SequentialTrace['txns'][number]['patches']): number {
  return patches.reduce((sum, [, del]) => sum + del, 0)
}
