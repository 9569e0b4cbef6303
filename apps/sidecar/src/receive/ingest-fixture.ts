/**
 * For the receive path's tests: an ingest with one group carrying one document, generous bounds,
 * fresh metrics and silent logs, collecting what it delivers; and envelopes of random content.
 */
import { randomBytes } from 'node:crypto'
import type { Envelope, Kind } from '@e2e-col/protocol'
import type { MemberId } from '../group/roster.ts'
import { createLogger } from '../ops/logger.ts'
import { createMetrics, type Metrics } from '../ops/metrics.ts'
import { createIngest, type Ingest, type IngestOptions } from './ingest.ts'

/** The one group the fixture's ingest serves. */
export const FIXTURE_GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

export interface IngestFixture {
  readonly ingest: Ingest
  /** Every envelope delivered, in order (unless `extra.deliver` replaced the collector). */
  readonly delivered: Envelope[]
  /** The same deliveries with who sent each and the source key it came under. */
  readonly deliveries: { env: Envelope; from: MemberId | undefined; source: string }[]
  readonly metrics: Metrics
  /** Count per value of `label` of one labelled counter. */
  by(counter: LabelledCounter, label: string): Promise<Record<string, number>>
}

type LabelledCounter = 'receivedDropped' | 'reassemblyEvictions' | 'envelopesOut' | 'attachmentsFetched'

/** An ingest serving `docId` over {@link FIXTURE_GROUP}; `extra` replaces any option. */
export function ingestFixture(docId: string, extra: Partial<IngestOptions> = {}): IngestFixture {
  const delivered: Envelope[] = []
  const deliveries: IngestFixture['deliveries'] = []
  const metrics = createMetrics()
  const ingest = createIngest({
    docOfGroup: (groupId) => (groupId === FIXTURE_GROUP ? docId : undefined),
    maxFrameBytes: 4 * 1024 * 1024,
    reassembly: { maxPartialMessages: 8, maxPartialBytes: 4 * 1024 * 1024, ttlMs: 60_000 },
    dedup: { maxEntries: 1000, ttlMs: 60_000 },
    now: () => 1000,
    deliver: (_doc, _frame, env, from, source) => {
      delivered.push(env)
      deliveries.push({ env, from, source })
    },
    metrics,
    logger: createLogger('silent'),
    ...extra,
  })
  const by = async (counter: LabelledCounter, label: string): Promise<Record<string, number>> =>
    Object.fromEntries(
      (await metrics[counter].get()).values.map((v) => [String((v.labels as Record<string, unknown>)[label]), v.value]),
    )
  return { ingest, delivered, deliveries, metrics, by }
}

/** An envelope of `kind` from `senderId` with `payloadBytes` random bytes and a fresh message id. */
export function randomEnvelope(docId: string, senderId: string, payloadBytes: number, kind: Kind = 'update'): Envelope {
  return {
    kind,
    flags: 0,
    docId,
    senderId,
    messageId: randomBytes(16).toString('hex'),
    seq: 1,
    payload: new Uint8Array(randomBytes(payloadBytes)),
  }
}
