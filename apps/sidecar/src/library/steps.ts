/**
 * How the library's steps run: operations one at a time (refused once the sidecar stops), and
 * store steps whose failure stops the sidecar and answers the page with DOCS_STOPPING.
 */
import { LibraryError } from '../http/library-error.ts'

export interface Steps {
  /** Runs `fn` after every operation before it. @throws LibraryError DOCS_STOPPING once the sidecar stops */
  exclusive<T>(fn: () => Promise<T>): Promise<T>
  /** Runs a store step. @throws LibraryError DOCS_STOPPING when the store failed (the sidecar stops) */
  stored<T>(fn: () => T): T
  /** Runs a store step whose failure only stops the sidecar (undefined then). */
  storing<T>(fn: () => T): T | undefined
}

export interface StepsOptions {
  readonly stopped: () => boolean
  /** Runs a step that touches the store; a store failure stops the sidecar (undefined then). */
  readonly storing: <T>(fn: () => T) => T | undefined
}

export function createSteps(o: StepsOptions): Steps {
  let turn: Promise<unknown> = Promise.resolve()
  return {
    exclusive(fn) {
      const run = turn.then(() => {
        if (o.stopped()) throw new LibraryError('DOCS_STOPPING', 'the sidecar is stopping')
        return fn()
      })
      turn = run.catch(() => undefined)
      return run
    },
    stored(fn) {
      const r = o.storing(() => ({ value: fn() }))
      if (r === undefined) throw new LibraryError('DOCS_STOPPING', 'the replica store failed; the sidecar is stopping')
      return r.value
    },
    storing: o.storing,
  }
}
