/**
 * For the authorship tests: Yjs updates written under a chosen client id, as a page writes them
 * and as a hostile member forges them.
 */
import * as Y from 'yjs'

/** An update written under `clientId` whose first struct sits at `clock` (the clocks below are not in it). */
export function writtenAt(clientId: number, clock: number, text: string): Uint8Array {
  const doc = new Y.Doc()
  doc.clientID = clientId
  if (clock > 0) doc.getText('t').insert(0, 'x'.repeat(clock))
  const before = Y.encodeStateVector(doc)
  doc.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(doc, before)
}
