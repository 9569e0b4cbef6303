/**
 * Bounded capture of a turn's output: the head of stdout up to `maxBytes` (the reply) and a ring
 * of the last `tailBytes` of stdout and stderr interleaved (the failure tail). Memory stays bounded
 * however much the agent prints; the stream is always drained so the agent never blocks on a pipe.
 */
export interface OutputCapture {
  onStdout(chunk: Uint8Array): void
  onStderr(chunk: Uint8Array): void
  /** The captured stdout head as text. */
  stdoutText(): string
  /** Stdout bytes not kept because of the bound. */
  readonly droppedStdoutBytes: number
  /** The last bytes of combined output as text. */
  tailText(): string
  readonly totalBytes: number
}

const decode = (parts: Uint8Array[]) => new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(parts))

/** Creates a capture with explicit bounds (both positive integers). */
export function createOutputCapture(options: { maxBytes: number; tailBytes: number }): OutputCapture {
  const { maxBytes, tailBytes } = options
  if (!(maxBytes > 0 && tailBytes > 0)) throw new RangeError('capture bounds must be positive')
  const head: Uint8Array[] = []
  let headBytes = 0
  let dropped = 0
  let total = 0
  let tail: Uint8Array[] = []
  let tailSize = 0

  function pushTail(chunk: Uint8Array): void {
    tail.push(chunk)
    tailSize += chunk.length
    while (tailSize - (tail[0]?.length ?? 0) >= tailBytes) {
      tailSize -= tail[0]?.length ?? 0
      tail = tail.slice(1)
    }
  }

  return {
    onStdout(chunk) {
      total += chunk.length
      const room = maxBytes - headBytes
      if (room > 0) {
        const kept = chunk.subarray(0, room)
        head.push(kept)
        headBytes += kept.length
      }
      dropped += Math.max(0, chunk.length - Math.max(room, 0))
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
    tailText() {
      const text = decode(tail).replace(/^\uFFFD+/, '')
      return text.length > tailBytes ? text.slice(-tailBytes) : text
    },
    get totalBytes() {
      return total
    },
  }
}
