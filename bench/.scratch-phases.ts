import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import { createReassembler, decodeBody, decodeEnvelope, encodeBodies, encodeEnvelope, chunkFrame, usePlatformCodecs, type Envelope } from '@e2e-col/protocol'
if (process.argv[2] === 'fast') usePlatformCodecs({ base64: { encode: (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'), decode: (s) => Buffer.from(s, 'base64') }, crc32: (b) => zlib.crc32(b) })
const envelope: Envelope = { kind: 'update', flags: 0, docId: '0f8fad5b-d9cb-469f-a165-70867728950e', senderId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', messageId: randomBytes(16).toString('hex'), seq: 1, payload: new Uint8Array(randomBytes(1 << 20)) }
const frame = encodeEnvelope(envelope)
const bodies = encodeBodies(frame, { maxBodyBytes: 2000 })
const frames = chunkFrame(frame, { maxBodyBytes: 2000 })
const envs = frames.map(f => decodeEnvelope(f))
function t(name: string, f: () => unknown, n = 30) { for (let i=0;i<5;i++) f(); const s = performance.now(); for (let i=0;i<n;i++) f(); console.log(name.padEnd(28), ((performance.now()-s)/n).toFixed(3), 'ms') }
t('encodeEnvelope', () => encodeEnvelope(envelope))
t('chunkFrame', () => chunkFrame(frame, { maxBodyBytes: 2000 }))
t('encodeBodies', () => encodeBodies(frame, { maxBodyBytes: 2000 }))
t('SEND', () => encodeBodies(encodeEnvelope(envelope), { maxBodyBytes: 2000 }))
t('decodeBody x739', () => bodies.map(b => decodeBody(b)))
t('decodeEnvelope x739', () => frames.map(f => decodeEnvelope(f)))
t('reassemble', () => { const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 8<<20, ttlMs: 60000 }); for (const e of envs) r.push(e, 0) })
t('RECV', () => { const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 8<<20, ttlMs: 60000 }); for (const b of bodies) { const x = r.push(decodeEnvelope(decodeBody(b)), 0); if (x.status === 'complete') return decodeEnvelope(x.frame) } })
t('native enc whole', () => Buffer.from(envelope.payload).toString('base64'))
const b64 = Buffer.from(envelope.payload).toString('base64')
t('native dec whole', () => Buffer.from(b64, 'base64'))
const texts = bodies.map(b => b.slice(11))
t('native dec bodies', () => { for (const s of texts) Buffer.from(s, 'base64') })
