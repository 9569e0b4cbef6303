/** What the loop hands each of its parts that runs for the chat's whole life. */
export interface LoopContext {
  /** Aborted when the chat ends: what the part is doing stops with it. */
  life: AbortSignal
  /** The loop's local log (redacted there). */
  log(line: string): void
  /** A step in the background failed: reported locally, the chat goes on. */
  onError(what: string, err: unknown): void
}
