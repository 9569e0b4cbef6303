/**
 * {@link ClientStorage} on IndexedDB through idb-keyval: one database per document
 * (`e2e-col:doc:<docId>`, store `state`) and one for the installation (`e2e-col`, store `installation`).
 *
 * Keys in a document store: `checkpoint` (full state, Uint8Array), `seqMark` (number) and
 * `['outbox', seq]` (array keys sort numerically by seq, so the outbox reads back in order).
 */
import { createStore, entries, promisifyRequest, update, type UseStore } from 'idb-keyval'
import { isUuid } from '@e2e-col/protocol'
import { newUuid } from './ids.ts'
import {
  rescueWriters,
  type ClientStorage,
  type OutboxEntry,
  type RescueSlot,
  type StorageCommit,
  type StoredDoc,
} from './storage.ts'

const OUTBOX = 'outbox'

/** Options of {@link createIndexedDbStorage}. */
export interface IndexedDbStorageOptions {
  /** Prefix of database names, so tests and several apps on one origin stay apart. Default `e2e-col`. */
  readonly prefix?: string
  /** Largest state kept in the page-hide rescue slot (localStorage holds ~5 MB per origin). Default 1 MiB. */
  readonly maxRescueBytes?: number
}

/**
 * Opens (lazily) the IndexedDB store of one document.
 * @param docId - the document's UUID; it names the database
 */
export function createIndexedDbStorage(docId: string, options: IndexedDbStorageOptions = {}): ClientStorage {
  const prefix = options.prefix ?? 'e2e-col'
  const doc: UseStore = createStore(`${prefix}:doc:${docId}`, 'state')
  const installation: UseStore = createStore(prefix, 'installation')

  const rescue = localStorageRescue(`${prefix}:doc:${docId}:rescue`, options.maxRescueBytes ?? 1024 * 1024)
  return {
    ...(rescue === undefined ? {} : { rescue }),
    async senderId() {
      // update() runs get+put in one readwrite transaction, so two tabs cannot create two ids.
      let id = ''
      await update<string>(
        'senderId',
        (old) => {
          id = isUuid(old) ? old : newUuid()
          return id
        },
        installation,
      )
      return id
    },

    async load(): Promise<StoredDoc> {
      const rows = await entries<IDBValidKey, unknown>(doc)
      let checkpoint: Uint8Array | undefined
      let seqMark = 0
      let skipped = 0
      const outbox: OutboxEntry[] = []
      for (const [key, value] of rows) {
        if (key === 'checkpoint' && value instanceof Uint8Array) checkpoint = value
        else if (key === 'seqMark' && typeof value === 'number' && Number.isSafeInteger(value)) seqMark = value
        else if (Array.isArray(key) && key[0] === OUTBOX && isOutboxEntry(value)) outbox.push(value)
        else skipped += 1
      }
      outbox.sort((a, b) => a.seq - b.seq)
      return { checkpoint, outbox, seqMark, skipped }
    },

    commit(change: StorageCommit) {
      return doc('readwrite', (store) => {
        try {
          if (change.checkpoint !== undefined) store.put(change.checkpoint, 'checkpoint')
          for (const seq of change.remove ?? []) store.delete([OUTBOX, seq])
          for (const entry of change.add ?? []) store.put(entry, [OUTBOX, entry.seq])
          if (change.seqMark !== undefined) store.put(change.seqMark, 'seqMark')
        } catch (error) {
          // A put can throw synchronously (DataCloneError); without an abort the requests already
          // issued would still commit and the change would land half-written.
          store.transaction.abort()
          throw error
        }
        // Resolve on transaction completion: only then is the write durable.
        return promisifyRequest(store.transaction)
      })
    },
  }
}

function isOutboxEntry(value: unknown): value is OutboxEntry {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    typeof v['seq'] === 'number' &&
    Number.isSafeInteger(v['seq']) &&
    typeof v['messageId'] === 'string' &&
    /^[0-9a-f]{32}$/.test(v['messageId']) &&
    (v['kind'] === 'update' || v['kind'] === 'snapshot') &&
    v['payload'] instanceof Uint8Array
  )
}

/** The rescue slot on `localStorage` (base64 text), when the platform has one. */
function localStorageRescue(key: string, maxBytes: number): RescueSlot | undefined {
  if (typeof localStorage === 'undefined') return undefined
  const writersKey = `${key}:writers`
  return {
    save(state, writers) {
      if (state.byteLength > maxBytes) return false
      try {
        let binary = ''
        // Chunked: String.fromCharCode(...bigArray) overflows the stack.
        for (let i = 0; i < state.length; i += 0x8000) binary += String.fromCharCode(...state.subarray(i, i + 0x8000))
        // An earlier page's ids never stay beside another state: a state without ids is read as
        // one from before they were kept (all it adds is sent, as then).
        localStorage.removeItem(writersKey)
        localStorage.setItem(key, btoa(binary))
      } catch {
        return false // quota exceeded or storage disabled: the IndexedDB path is all we have
      }
      try {
        const ids = rescueWriters(writers)
        if (ids !== undefined) localStorage.setItem(writersKey, JSON.stringify(ids))
      } catch {
        // the state is saved: without its ids, all it adds is sent, as before they were kept
      }
      return true
    },
    peekWriters() {
      try {
        const text = localStorage.getItem(writersKey)
        return text === null ? undefined : rescueWriters(JSON.parse(text))
      } catch {
        return undefined
      }
    },
    peek() {
      try {
        const text = localStorage.getItem(key)
        if (text === null) return undefined
        const binary = atob(text)
        const bytes = new Uint8Array(binary.length)
        for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
        return bytes
      } catch {
        return undefined
      }
    },
    clear() {
      try {
        localStorage.removeItem(key)
        localStorage.removeItem(writersKey)
      } catch {
        // nothing to clear when storage is disabled
      }
    },
  }
}
