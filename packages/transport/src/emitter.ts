/** A minimal typed event emitter: `on` returns its own unsubscribe function. */
export class Emitter<Events extends Record<string, unknown>> {
  readonly #listeners = new Map<keyof Events, Set<(value: never) => void>>()

  /** Subscribes `listener` to `event`; call the returned function to unsubscribe. */
  on<K extends keyof Events>(event: K, listener: (value: Events[K]) => void): () => void {
    let set = this.#listeners.get(event)
    if (set === undefined) {
      set = new Set()
      this.#listeners.set(event, set)
    }
    set.add(listener as (value: never) => void)
    return () => {
      set.delete(listener as (value: never) => void)
    }
  }

  /** Calls every listener of `event`; a throwing listener does not stop the others. */
  emit<K extends keyof Events>(event: K, value: Events[K]): void {
    const set = this.#listeners.get(event)
    if (set === undefined) return
    // Copy first: a listener may unsubscribe itself (or subscribe others) while we iterate.
    for (const listener of Array.from(set)) {
      try {
        ;(listener as (value: Events[K]) => void)(value)
      } catch (error) {
        // A UI bug in one listener must neither break the connection loop nor crash the process.
        if (typeof globalThis.reportError === 'function') globalThis.reportError(error)
        else console.error(error)
      }
    }
  }
}
