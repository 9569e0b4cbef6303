import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import { createReassembler, decodeEnvelope, encodeEnvelope, chunkFrame, usePlatformCodecs, type Envelope } from '@e2e-col/protocol'
usePlatformCodecs({ crc32: (b) => zlib.crc32(b) })
const envelope: Envelope = { kind: 'update', flags: 0, docId: '0f8fad5b-d9cb-469f-a165-70867728950e', senderId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', messageId: randomBytes(16).toString('hex'), seq: 1, payload: new Uint8Array(randomBytes(1 << 20)) }
const frames = chunkFrame(encodeEnvelope(envelope), { maxBodyBytes: 2000 })
const envs = frames.map(f => decodeEnvelope(f))
const s = performance.now()
for (let i = 0; i < 400; i++) { const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 8<<20, ttlMs: 60000 }); for (const e of envs) r.push(e, 0) }
console.log((performance.now() - s) / 400)
