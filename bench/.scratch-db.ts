import { randomBytes } from 'node:crypto'
import { decodeBody, encodeEnvelope, encodeBodies, usePlatformCodecs, type Envelope } from '@e2e-col/protocol'
usePlatformCodecs({ base64: { encode: (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'), decode: (s) => Buffer.from(s, 'base64') } })
const envelope: Envelope = { kind: 'update', flags: 0, docId: '0f8fad5b-d9cb-469f-a165-70867728950e', senderId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', messageId: randomBytes(16).toString('hex'), seq: 1, payload: new Uint8Array(randomBytes(1 << 20)) }
const bodies = encodeBodies(encodeEnvelope(envelope), { maxBodyBytes: 2000 })
const s = performance.now()
for (let i = 0; i < 1000; i++) for (const b of bodies) decodeBody(b)
console.log((performance.now() - s) / 1000)
