/**
 * The shape of one start-up phase: what it opened (its part, for the phases after it) and how to
 * close that. startSidecar pushes each closer onto one stack as the phase returns, so a failed
 * start and a shutdown both close, in reverse order, exactly what was opened.
 */
import type { Clock } from '../clock.ts'
import type { Closer } from '../closers.ts'
import type { SidecarConfig } from '../config.ts'
import type { LinkWatch } from '../ops/linked-device.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { SignalBackend } from '@e2e-col/signal-cli'

export interface Phase<T> {
  readonly part: T
  readonly close: Closer
}

/** What every phase may read: the parsed config, the daemon client, time, logs and metrics. */
export interface Basics {
  readonly config: SidecarConfig
  readonly backend: SignalBackend
  readonly clock: Clock
  readonly logger: Logger
  readonly metrics: Metrics
  /** This run's id (the senderId of what the sidecar itself sends). */
  readonly sidecarId: string
  /** Whether Signal still has this computer as a linked device, from every account call (linked-device.ts). */
  readonly links: LinkWatch
}

export const nothingToClose: Closer = () => undefined
