/**
 * The receive side of attachment references (contract §3.13, §4.6): an `attachment` envelope from
 * the group names a frame carried as a Signal attachment of the same message. The frame's size is
 * checked before the daemon is asked for it, the fetch is bounded in time and in how many run at
 * once, and the bytes are checked (length, SHA-256, header) before the envelope goes on as if it
 * had come in a text body. A missing, corrupt or late attachment is counted and reported lost, so
 * the document asks the group again (gap repair); it never stalls other messages or documents.
 */
import {
  decodeAttachmentRef,
  envelopeByteLength,
  isProtocolError,
  openAttachment,
  type Envelope,
} from '@e2e-col/protocol'
import type { SignalAttachment } from '@e2e-col/signal-cli'
import { sha256 } from '../send/attachment-send.ts'

/** How a reference ended when it did not yield its envelope. */
export type FetchFailure = 'missing' | 'corrupt' | 'too-large' | 'failed' | 'busy'

export interface AttachmentFetchOptions {
  /** The daemon's `getAttachment`. */
  fetch: (id: string, groupId: string) => Promise<Uint8Array>
  /** Largest payload accepted (the frame may be a few header bytes more). */
  maxPayloadBytes: number
  timeoutMs: number
  /** Fetches running at once; the next ones wait. */
  maxInFlight: number
  /** References waiting beyond those; more are dropped as `busy`. */
  maxWaiting: number
}

export interface AttachmentFetcher {
  /**
   * Fetches and checks the frame `ref` names among the message's `attachments`; resolves with the
   * carried envelope and its frame, or the failure. Never rejects.
   */
  open(
    groupId: string,
    ref: Envelope,
    attachments: readonly SignalAttachment[],
  ): Promise<{ ok: true; frame: Uint8Array; envelope: Envelope } | { ok: false; reason: FetchFailure }>
  /** Fetches running or waiting. */
  readonly pending: number
}

export function createAttachmentFetcher(o: AttachmentFetchOptions): AttachmentFetcher {
  let running = 0
  const waiting: (() => void)[] = []

  async function slot<T>(work: () => Promise<T>): Promise<T> {
    if (running >= o.maxInFlight) await new Promise<void>((resolve) => waiting.push(resolve))
    running += 1
    try {
      return await work()
    } finally {
      running -= 1
      waiting.shift()?.()
    }
  }

  async function fetchBounded(id: string, groupId: string): Promise<Uint8Array | 'timeout'> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), o.timeoutMs)
    })
    try {
      return await Promise.race([o.fetch(id, groupId), late])
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    async open(groupId, ref, attachments) {
      let totalLength: number
      try {
        totalLength = decodeAttachmentRef(ref).totalLength
      } catch {
        return { ok: false, reason: 'corrupt' }
      }
      // Bounded before asking: nothing larger than a frame the sidecar would accept whole.
      if (totalLength > envelopeByteLength(ref.seq, o.maxPayloadBytes)) return { ok: false, reason: 'too-large' }
      const listed =
        attachments.find((a) => a.size === totalLength) ??
        (attachments.length === 1 && attachments[0]?.size === undefined ? attachments[0] : undefined)
      if (listed === undefined) return { ok: false, reason: attachments.length === 0 ? 'missing' : 'corrupt' }
      if (running >= o.maxInFlight && waiting.length >= o.maxWaiting) return { ok: false, reason: 'busy' }
      return slot(async () => {
        let bytes: Uint8Array | 'timeout'
        try {
          bytes = await fetchBounded(listed.id, groupId)
        } catch (error) {
          // -1 is the daemon saying it has no such file (never downloaded, or deleted).
          return { ok: false, reason: (error as { rpcCode?: unknown }).rpcCode === -1 ? 'missing' : 'failed' }
        }
        if (bytes === 'timeout') return { ok: false, reason: 'failed' }
        if (bytes.length !== totalLength) return { ok: false, reason: 'corrupt' }
        try {
          const envelope = openAttachment(ref, bytes, sha256(bytes), { maxPayloadBytes: o.maxPayloadBytes })
          return { ok: true, frame: bytes, envelope }
        } catch (error) {
          return { ok: false, reason: isProtocolError(error) ? 'corrupt' : 'failed' }
        }
      })
    },
    get pending() {
      return running + waiting.length
    },
  }
}
