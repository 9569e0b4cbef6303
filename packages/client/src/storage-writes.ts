/**
 * The binding's one ordered write path to its {@link ClientStorage}: tasks run strictly one after
 * another (the outbox's and the checkpoints' writes keep one order), a failure is reported and
 * never thrown, and a store that could not be read is never written again ({@link disable}).
 */
import { ClientError } from './errors.ts'
import type { ClientStorage, StorageCommit } from './storage.ts'

export class StorageWrites {
  readonly #storage: ClientStorage
  readonly #report: (error: ClientError) => void
  #tail: Promise<void> = Promise.resolve()
  #persist = true

  constructor(storage: ClientStorage, report: (error: ClientError) => void) {
    this.#storage = storage
    this.#report = report
  }

  /** False once {@link disable}d: changes are then kept in memory only. */
  get persistent(): boolean {
    return this.#persist
  }

  /** Writes nothing more: a checkpoint of a half-loaded document would overwrite real data. */
  disable(): void {
    this.#persist = false
  }

  /** Makes `first` (the load, which runs outside the chain) what every later task waits for. */
  begin(first: Promise<void>): Promise<void> {
    this.#tail = first
    return first
  }

  /** Resolves once every task chained so far has run. */
  idle(): Promise<void> {
    return this.#tail
  }

  /** Runs `task` after every earlier one; its failure is reported, never thrown. */
  chain(task: () => Promise<void>): void {
    this.#tail = this.#tail.then(task).catch((cause: unknown) => {
      this.#report(
        cause instanceof ClientError
          ? cause
          : new ClientError('CLIENT_STORAGE_FAILED', 'storage task failed', { cause }),
      )
    })
  }

  /** Writes `change` atomically; false (and a reported error) when storage failed or is disabled. */
  async commit(change: StorageCommit): Promise<boolean> {
    if (!this.#persist) return false
    try {
      await this.#storage.commit(change)
      return true
    } catch (cause) {
      // The change is still in memory and will be sent; it is just not durable. Tell the UI.
      this.#report(new ClientError('CLIENT_STORAGE_FAILED', 'could not write to local storage', { cause }))
      return false
    }
  }
}
