/**
 * Bounded capture of a turn's output: the head of stdout up to `maxBytes` (the reply, in memory)
 * and a ring of the last `tailBytes` of stdout and stderr interleaved (the failure tail). Memory
 * stays bounded however much the agent prints; the stream is always drained so the agent never
 * blocks on a pipe. With `spillPath`, stdout that does not fit is not lost: from the first byte
 * over the bound, the whole stdout (head included) is written to that file (0600), up to
 * `spillMaxBytes` (a disk bound against an agent that never stops printing; what is past it is
 * counted in `unkeptBytes`).
 */
import { closeSync, openSync, writeSync } from 'node:fs'

export interface OutputCapture {
  onStdout(chunk: Uint8Array): void
  onStderr(chunk: Uint8Array): void
  /** The captured stdout head as text. */
  stdoutText(): string
  /** Stdout bytes not kept in memory because of the bound. */
  readonly droppedStdoutBytes: number
  /** The file holding the whole stdout, once it overflowed the bound with a spill path. */
  readonly spilledTo: string | undefined
  /** Stdout bytes kept nowhere: past the spill file's bound, or all of the overflow when it failed. */
  readonly unkeptBytes: number
  /** The last bytes of combined output as text. */
  tailText(): string
  readonly totalBytes: number
  /** Closes the spill file, if one was opened. */
  close(): void
}

const decode = (parts: Uint8Array[]) => new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(parts))

/** Creates a capture with explicit bounds (both positive integers). */
/** Default bound of the spill file. */
export const DEFAULT_SPILL_MAX_BYTES = 256 * 1024 * 1024

export function createOutputCapture(options: {
  maxBytes: number
  tailBytes: number
  spillPath?: string | undefined
  spillMaxBytes?: number | undefined
}): OutputCapture {
  const { maxBytes, tailBytes } = options
  if (!(maxBytes > 0 && tailBytes > 0)) throw new RangeError('capture bounds must be positive')
  const head: Uint8Array[] = []
  let headBytes = 0
  let dropped = 0
  let total = 0
  let tail: Uint8Array[] = []
  let tailSize = 0
  let spill: number | undefined
  let spillFailed = false
  let closed = false
  let spilled = 0
  let unkept = 0
  const spillMax = options.spillMaxBytes ?? DEFAULT_SPILL_MAX_BYTES

  function pushTail(chunk: Uint8Array): void {
    tail.push(chunk)
    tailSize += chunk.length
    while (tailSize - (tail[0]?.length ?? 0) >= tailBytes) {
      tailSize -= tail[0]?.length ?? 0
      tail = tail.slice(1)
    }
  }

  function spillWrite(chunk: Uint8Array, overflow: number): void {
    if (options.spillPath === undefined || spillFailed || closed) {
      unkept += overflow
      return
    }
    try {
      if (spill === undefined) {
        spill = openSync(options.spillPath, 'w', 0o600)
        for (const part of head) {
          writeSync(spill, part)
          spilled += part.length
        }
      }
      const room = Math.max(0, spillMax - spilled)
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room)
      if (part.length > 0) writeSync(spill, part)
      spilled += part.length
      unkept += Math.min(overflow, chunk.length - part.length)
    } catch {
      // A full disk must not stop the drain: the reply then says the rest was not kept.
      spillFailed = true
      unkept += overflow
    }
  }

  return {
    onStdout(chunk) {
      total += chunk.length
      const room = maxBytes - headBytes
      if (chunk.length <= room) {
        head.push(chunk)
        headBytes += chunk.length
      } else {
        // Over the bound: the file gets the head so far (when it opens), then this whole chunk.
        spillWrite(chunk, chunk.length - Math.max(room, 0))
        if (room > 0) {
          head.push(chunk.subarray(0, room))
          headBytes += room
        }
        dropped += chunk.length - Math.max(room, 0)
      }
      pushTail(chunk)
    },
    onStderr(chunk) {
      total += chunk.length
      pushTail(chunk)
    },
    stdoutText() {
      // A cut can split a code point at the bound: drop the broken trailing sequence.
      return decode(head).replace(/\uFFFD+$/, '')
    },
    get droppedStdoutBytes() {
      return dropped
    },
    get spilledTo() {
      return spill !== undefined && !spillFailed ? options.spillPath : undefined
    },
    get unkeptBytes() {
      return spillFailed ? dropped : unkept
    },
    tailText() {
      const text = decode(tail).replace(/^\uFFFD+/, '')
      return text.length > tailBytes ? text.slice(-tailBytes) : text
    },
    get totalBytes() {
      return total
    },
    close() {
      if (spill === undefined || closed) return
      closed = true
      try {
        closeSync(spill)
      } catch {
        spillFailed = true
      }
    },
  }
}
