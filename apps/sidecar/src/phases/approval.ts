/**
 * The approval from the phone (approval/, decision 0039), opened after the documents: its list of
 * an agent's suggestions is fed by the review API (browser phase), its replies by the receive
 * phase's Note-to-Self events. Not opened with a backend that cannot send to Note to Self. Its
 * closer drops the suggestions still collecting (nothing is listed at shutdown); the list sent
 * last is kept in the data folder (approval/kept-batch.ts), so a reply after a restart still works.
 */
import { randomInt } from 'node:crypto'
import { join } from 'node:path'
import type { SignalDocumentMethods } from '@e2e-col/signal-cli'
import { createApprovals, type Approvals } from '../approval/approvals.ts'
import { APPROVAL_FILE } from '../approval/kept-batch.ts'
import { keptFile } from '../durable-file.ts'
import type { ReviewedDoc } from '../review/api-common.ts'
import type { Served } from './documents.ts'
import { nothingToClose, type Basics, type Phase } from './phase.ts'

/** A served document as the review API and the approval see it; undefined when not served. */
export function reviewedOf(served: Served, docId: string): ReviewedDoc | undefined {
  const doc = served.docs.get(docId)
  const replica = served.histories.replicaOf(docId)
  if (doc === undefined || replica === undefined) return undefined
  // Looked up again at each use: a request waiting for its body may outlive the document in
  // memory (decisions/0040), and an edit must reach the replica loaded after it.
  return {
    get doc() {
      return served.docs.get(docId) === undefined ? replica.doc : (served.histories.replicaOf(docId) ?? replica).doc
    },
    edit: (update) => served.docs.get(docId)?.content.edit(update) ?? false,
    role: () => (served.docs.get(docId) ?? doc).roles.self(),
    writerId: () => served.histories.writerId() ?? randomInt(2 ** 32),
    accepted: (id, applied) => served.acceptances.record(docId, id, applied),
  }
}

export function approvalPhase(b: Basics, served: Served): Phase<Approvals | undefined> {
  const { backend } = b
  const note = (backend as Partial<Pick<SignalDocumentMethods, 'sendNoteToSelf'>>).sendNoteToSelf
  if (note === undefined) return { part: undefined, close: nothingToClose }
  const approvals = createApprovals({
    sendNoteToSelf: async (text) => void (await note.call(backend, text)),
    titleOf: async (docId) => (await served.library?.list())?.documents.find((d) => d.docId === docId)?.title,
    reviewed: (docId) => reviewedOf(served, docId),
    kept: keptFile(join(b.config.replica.dataDir, APPROVAL_FILE), 'the open approval batch'),
    timers: b.clock,
    logger: b.logger,
  })
  return { part: approvals, close: () => approvals.close() }
}
