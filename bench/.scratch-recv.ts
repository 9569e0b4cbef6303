import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import { createReassembler, decodeBody, decodeEnvelope, encodeEnvelope, encodeBodies, usePlatformCodecs, type Envelope } from '@e2e-col/protocol'
usePlatformCodecs({ base64: { encode: (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'), decode: (s) => Buffer.from(s, 'base64') }, crc32: (b) => zlib.crc32(b) })
const envelope: Envelope = { kind: 'update', flags: 0, docId: '0f8fad5b-d9cb-469f-a165-70867728950e', senderId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', messageId: randomBytes(16).toString('hex'), seq: 1, payload: new Uint8Array(randomBytes(1 << 20)) }
const bodies = encodeBodies(encodeEnvelope(envelope), { maxBodyBytes: 2000 })
const texts = bodies.map(b => b.slice(11))
const N = Number(process.argv[2] ?? 300)
function once() { const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 8<<20, ttlMs: 60000 }); for (const b of bodies) { const x = r.push(decodeEnvelope(decodeBody(b)), 0); if (x.status === 'complete') decodeEnvelope(x.frame) } }
for (let i = 0; i < 30; i++) once()
let s = performance.now()
for (let i = 0; i < N; i++) once()
const ours = (performance.now() - s) / N
s = performance.now()
for (let i = 0; i < N; i++) for (const t of texts) Buffer.from(t, 'base64')
const nat = (performance.now() - s) / N
console.log('recv', ours.toFixed(3), 'native bodies', nat.toFixed(3), 'ratio', (nat / ours).toFixed(2))
