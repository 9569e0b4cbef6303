import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import { createReassembler, decodeBody, decodeEnvelope, encodeEnvelope, encodeBodies, usePlatformCodecs, type Envelope } from '@e2e-col/protocol'
usePlatformCodecs({ base64: { encode: (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'), decode: (s) => Buffer.from(s, 'base64') }, crc32: (b) => zlib.crc32(b) })
const envelope: Envelope = { kind: 'update', flags: 0, docId: '0f8fad5b-d9cb-469f-a165-70867728950e', senderId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', messageId: randomBytes(16).toString('hex'), seq: 1, payload: new Uint8Array(randomBytes(1 << 20)) }
const bodies = encodeBodies(encodeEnvelope(envelope), { maxBodyBytes: 2000 })
const texts = bodies.map(b => b.slice(11))
const frames = bodies.map(b => decodeBody(b))
const envs = frames.map(f => decodeEnvelope(f))
function t(name: string, f: () => unknown, n = 200) { for (let i=0;i<20;i++) f(); const s = performance.now(); for (let i=0;i<n;i++) f(); console.log(name.padEnd(28), ((performance.now()-s)/n).toFixed(3), 'ms') }
for (let rep = 0; rep < 2; rep++) {
t('native bodies', () => { for (const s of texts) Buffer.from(s, 'base64') })
t('native bodies (from full)', () => { for (const s of bodies) Buffer.from(s.slice(11), 'base64') })
t('decodeBody', () => { for (const s of bodies) decodeBody(s) })
t('decodeEnvelope', () => { for (const f of frames) decodeEnvelope(f) })
t('push', () => { const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 8<<20, ttlMs: 60000 }); for (const e of envs) r.push(e, 0) })
}
