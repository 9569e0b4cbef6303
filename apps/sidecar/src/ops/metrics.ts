/**
 * Prometheus metrics (prom-client). Each sidecar owns its registry, so two sidecars in one process
 * (the integration tests) never share counters. Labels never carry numbers, bodies or payloads.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client'

interface ReplicaSyncCounts {
  answered: number
  suppressed: number
  askedBack: number
}

/** Browser sockets and the envelopes they carry. */
function browserMetrics(r: Registry[]) {
  return {
    envelopesIn: new Counter({
      name: 'e2e_col_envelopes_in_total',
      help: 'Valid envelopes received from browsers, by kind',
      labelNames: ['kind'],
      registers: r,
    }),
    envelopesOut: new Counter({
      name: 'e2e_col_envelopes_out_total',
      help: 'Envelopes delivered to browsers from Signal, by kind',
      labelNames: ['kind'],
      registers: r,
    }),
    framesRefused: new Counter({
      name: 'e2e_col_frames_refused_total',
      help: 'Browser frames answered with an error envelope, by code',
      labelNames: ['code'],
      registers: r,
    }),
    connections: new Gauge({
      name: 'e2e_col_open_connections',
      help: 'Open browser WebSockets per document',
      labelNames: ['doc'],
      registers: r,
    }),
  }
}

/** The send path: bodies, packing, compression, retries, Signal's state and the outbox. */
function sendMetrics(r: Registry[], unsentSource: { read: () => number }) {
  return {
    bodiesSent: new Counter({
      name: 'e2e_col_bodies_sent_total',
      help: 'Bodies sent to Signal, by packing mode',
      labelNames: ['mode'],
      registers: r,
    }),
    batchFill: new Histogram({
      name: 'e2e_col_batch_fill_ratio',
      help: 'Body bytes / body boundary of each sent body',
      buckets: [0.1, 0.25, 0.5, 0.75, 0.9, 1],
      registers: r,
    }),
    envelopesDeflated: new Counter({
      name: 'e2e_col_envelopes_deflated_total',
      help: 'Envelopes whose payload was deflated for Signal',
      registers: r,
    }),
    deflateSavedBytes: new Counter({
      name: 'e2e_col_deflate_saved_bytes_total',
      help: 'Frame bytes saved by deflating payloads for Signal',
      registers: r,
    }),
    attachmentsSent: new Counter({
      name: 'e2e_col_attachments_sent_total',
      help: 'Envelopes sent as one Signal attachment, by outcome (sent, fell-back to text)',
      labelNames: ['outcome'],
      registers: r,
    }),
    chunksSent: new Counter({ name: 'e2e_col_chunks_sent_total', help: 'Chunk bodies sent', registers: r }),
    sendRetries: new Counter({
      name: 'e2e_col_send_retries_total',
      help: 'Send attempts retried after a connection error or HTTP 5xx',
      registers: r,
    }),
    sendFailures: new Counter({
      name: 'e2e_col_send_failures_total',
      help: 'Sends given up, by outcome',
      labelNames: ['outcome'],
      registers: r,
    }),
    rateLimited: new Counter({
      name: 'e2e_col_send_rate_limited_total',
      help: 'Send answers that asked to slow down',
      registers: r,
    }),
    sendLatency: new Histogram({
      name: 'e2e_col_send_latency_seconds',
      help: 'Duration of successful send calls',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: r,
    }),
    replaysAcked: new Counter({
      name: 'e2e_col_replays_acked_total',
      help: 'Browser envelopes already on Signal, acknowledged again without a second send',
      registers: r,
    }),
    backlogMerged: new Counter({
      name: 'e2e_col_backlog_merged_envelopes_total',
      help: 'Queued envelopes merged into fewer updates before sending (a backlog from Signal being away)',
      registers: r,
    }),
    signalState: new Gauge({
      name: 'e2e_col_signal_state',
      help: 'Signal as this sidecar sees it: 1 for the current state (reachable, unreachable, daemon-down)',
      labelNames: ['state'],
      registers: r,
    }),
    signalProbes: new Counter({
      name: 'e2e_col_signal_probes_total',
      help: 'Sends tried while Signal was away (one at a time, at a bounded backoff)',
      registers: r,
    }),
    documentsInMemory: new Gauge({
      name: 'e2e_col_documents_in_memory',
      help: 'Served documents whose replica is in memory now (the others load on first use)',
      registers: r,
    }),
    documentMoves: new Counter({
      name: 'e2e_col_document_moves_total',
      help: 'Replicas loaded into memory (on first use) and taken out of it (quiet, or beyond the bound)',
      labelNames: ['move'],
      registers: r,
    }),
    unsentEnvelopes: new Gauge({
      name: 'e2e_col_unsent_envelopes',
      help: 'Changes accepted from browsers that Signal has not taken yet (the durable outbox)',
      registers: r,
      collect() {
        this.set(unsentSource.read())
      },
    }),
  }
}

/** The receive path: events, bodies dropped or deduplicated, chunks, attachments, announcements. */
function receiveMetrics(r: Registry[]) {
  return {
    attachmentsFetched: new Counter({
      name: 'e2e_col_attachments_fetched_total',
      help: 'Attachment references from the group, by outcome (ok, missing, corrupt, too-large, failed, busy)',
      labelNames: ['outcome'],
      registers: r,
    }),
    announcements: new Counter({
      name: 'e2e_col_capability_announcements_total',
      help: 'Capability announcements (health envelopes) sent and received',
      labelNames: ['direction'],
      registers: r,
    }),
    chunksReceived: new Counter({
      name: 'e2e_col_chunks_received_total',
      help: 'Chunk envelopes received',
      registers: r,
    }),
    dedupHits: new Counter({
      name: 'e2e_col_dedup_hits_total',
      help: 'Envelopes from Signal dropped as already seen (including own sync copies)',
      registers: r,
    }),
    reassemblyEvictions: new Counter({
      name: 'e2e_col_reassembly_evictions_total',
      help: 'Partial chunked messages evicted',
      labelNames: ['reason'],
      registers: r,
    }),
    receivedDropped: new Counter({
      name: 'e2e_col_received_dropped_total',
      help: 'Bodies or envelopes from Signal dropped, by reason',
      labelNames: ['reason'],
      registers: r,
    }),
    retractions: new Counter({
      name: 'e2e_col_retractions_total',
      help: "Admin deletes of refused updates from the group's chat history, by outcome (sent, over-limit, failed)",
      labelNames: ['outcome'],
      registers: r,
    }),
    groupUpdates: new Counter({
      name: 'e2e_col_group_updates_total',
      help: 'Group-change events read (names, members, invitations)',
      registers: r,
    }),
    eventsSkipped: new Counter({
      name: 'e2e_col_events_skipped_total',
      help: 'Events-stream items without a group body, by reason',
      labelNames: ['reason'],
      registers: r,
    }),
    streamReconnects: new Counter({
      name: 'e2e_col_events_stream_reconnects_total',
      help: 'Events stream reconnects',
      registers: r,
    }),
  }
}

/** The replica's answers to the group and its own messages. */
function replicaMetrics(r: Registry[], replicaSyncSource: { read: () => ReplicaSyncCounts }) {
  return {
    replicaSync: new Gauge({
      name: 'e2e_col_replica_sync_total',
      help: "The replica's answers to the group's sync-requests, by outcome (answered, suppressed, asked-back)",
      labelNames: ['outcome'],
      registers: r,
      collect() {
        const s = replicaSyncSource.read()
        this.set({ outcome: 'answered' }, s.answered)
        this.set({ outcome: 'suppressed' }, s.suppressed)
        this.set({ outcome: 'asked-back' }, s.askedBack)
      },
    }),
    replicaMessages: new Counter({
      name: 'e2e_col_replica_messages_sent_total',
      help: "The replica's own messages to the group, by kind (sync-request, sync-response, health)",
      labelNames: ['kind'],
      registers: r,
    }),
  }
}

export function createMetrics() {
  const registry = new Registry()
  const r = [registry]
  // The replica's sync answers are counted by the responders; the gauge reads them when scraped.
  const replicaSyncSource = { read: (): ReplicaSyncCounts => ({ answered: 0, suppressed: 0, askedBack: 0 }) }
  const unsentSource = { read: () => 0 }
  return {
    replicaSyncSource,
    unsentSource,
    registry,
    ...browserMetrics(r),
    ...sendMetrics(r, unsentSource),
    ...receiveMetrics(r),
    ...replicaMetrics(r, replicaSyncSource),
  }
}

export type Metrics = ReturnType<typeof createMetrics>
