/**
 * Section 4: how much of what goes to Signal is Yjs payload, over replay 1 (the frames client A sent
 * in the first counted e2e-col run), and what payload compression saves.
 *
 * The sidecar deflates the payload of every envelope that needs more than one body (contract §4.2).
 * This section also computes, from the same frames, the bodies without compression and with every
 * payload deflated (node:zlib raw deflate, level 6, re-encoded and split exactly as the sidecar's
 * chunker does); the deflate-of-large-envelopes computation is checked against the measured sends.
 */
import { deflateRawSync } from 'node:zlib'
import { bodyByteLength, decodeEnvelope, encodeBodies, encodeEnvelope } from '@e2e-col/protocol'
import type { E2eCapture, E2eRun } from './trace-replay.ts'

const BOUNDARY = 2000

interface Packing {
  readonly sends: number
  readonly bytes: number
}

function bodiesOf(frame: Uint8Array): Packing {
  const bodies = encodeBodies(frame, { maxBodyBytes: BOUNDARY })
  return { sends: bodies.length, bytes: bodies.reduce((sum, b) => sum + bodyByteLength(b), 0) }
}

function total(frames: readonly Uint8Array[], transform: (frame: Uint8Array) => Uint8Array): Packing {
  let sends = 0
  let bytes = 0
  for (const frame of frames) {
    const p = bodiesOf(transform(frame))
    sends += p.sends
    bytes += p.bytes
  }
  return { sends, bytes }
}

function deflated(onlyLarge: boolean) {
  return (frame: Uint8Array): Uint8Array => {
    if (onlyLarge && bodiesOf(frame).sends === 1) return frame
    const envelope = decodeEnvelope(frame)
    const payload = new Uint8Array(deflateRawSync(envelope.payload, { level: 6 }))
    return payload.byteLength < envelope.payload.byteLength ? encodeEnvelope({ ...envelope, payload }) : frame
  }
}

export interface WireEfficiencyResult {
  readonly frames: number
  readonly payloadBytes: number
  /** Sidecar A's distinct bodies carrying edits; its sync traffic and resends are left out (timing). */
  readonly measured: { readonly sends: number; readonly bytes: number; readonly efficiency: number }
  readonly computed: { readonly sends: number; readonly bytes: number; readonly efficiency: number }
  readonly compressedLarge: {
    readonly sends: number
    readonly bytes: number
    readonly efficiency: number
    readonly sendsSaved: number
  }
  readonly compressedAll: {
    readonly sends: number
    readonly bytes: number
    readonly efficiency: number
    readonly sendsSaved: number
  }
  readonly targets: Record<string, boolean>
}

export function benchWireEfficiency(capture: E2eCapture, run: E2eRun): WireEfficiencyResult {
  const plain = total(capture.frames, (f) => f)
  const large = total(capture.frames, deflated(true))
  const all = total(capture.frames, deflated(false))
  const eff = (bytes: number): number => capture.payloadBytes / bytes
  const measuredEfficiency = eff(run.sendsAByPurpose.editBytes)
  return {
    frames: capture.frames.length,
    payloadBytes: capture.payloadBytes,
    measured: {
      sends: run.sendsAByPurpose.edits,
      bytes: run.sendsAByPurpose.editBytes,
      efficiency: measuredEfficiency,
    },
    computed: { ...plain, efficiency: eff(plain.bytes) },
    compressedLarge: { ...large, efficiency: eff(large.bytes), sendsSaved: 1 - large.sends / plain.sends },
    compressedAll: { ...all, efficiency: eff(all.bytes), sendsSaved: 1 - all.sends / plain.sends },
    targets: {
      base64EfficiencyAtLeast0_70: eff(plain.bytes) >= 0.7,
      compressionLowersSends: run.sendsAByPurpose.edits < plain.sends,
    },
  }
}

export function printWireEfficiency(r: WireEfficiencyResult): void {
  console.log(
    `\n## 4. Wire efficiency over replay 1 (${r.frames} frames from client A, ${r.payloadBytes.toLocaleString('en')} Yjs payload bytes, ${BOUNDARY}-byte bodies)\n`,
  )
  console.log('| what | Signal sends by A | body bytes | Yjs payload / body bytes |')
  console.log('|---|---|---|---|')
  console.log(
    `| measured (sidecar A → toy, compression on: the default) | ${r.measured.sends} | ${r.measured.bytes.toLocaleString('en')} | ${r.measured.efficiency.toFixed(3)} (base64 alone cannot pass 0.75) |`,
  )
  console.log(
    `| computed, same frames, no compression | ${r.computed.sends} | ${r.computed.bytes.toLocaleString('en')} | ${r.computed.efficiency.toFixed(3)} |`,
  )
  console.log(
    `| computed, deflate of envelopes over one body (what the sidecar does) | ${r.compressedLarge.sends} (−${(r.compressedLarge.sendsSaved * 100).toFixed(0)} %) | ${r.compressedLarge.bytes.toLocaleString('en')} | ${r.compressedLarge.efficiency.toFixed(3)} |`,
  )
  console.log(
    `| computed, deflate of every payload | ${r.compressedAll.sends} (−${(r.compressedAll.sendsSaved * 100).toFixed(0)} %) | ${r.compressedAll.bytes.toLocaleString('en')} | ${r.compressedAll.efficiency.toFixed(3)} |`,
  )
  console.log('targets:', r.targets)
}
