/**
 * What a bare Y.Doc holding a document costs a plain `node` process: `load` (update bytes, base64)
 * → `memory` before and after applying it (each after a full collection), the doc kept alive.
 */
import * as Y from 'yjs'

const kept = []
process.on('disconnect', () => process.exit(0))
process.on('message', (request) => {
  if (request.type === 'stop') process.exit(0)
  if (request.type !== 'load') return
  globalThis.gc?.()
  const before = process.memoryUsage()
  const doc = new Y.Doc()
  Y.applyUpdate(doc, Buffer.from(request.update, 'base64'))
  kept.push(doc)
  globalThis.gc?.()
  process.send?.({ type: 'memory', before, after: process.memoryUsage(), length: doc.getText('text').length })
})
