/**
 * Phase 2, the daemon: the start-up checks (startup.ts) and the first events stream, opened before
 * any port so a daemon that refuses it fails the start. The receive phase takes the stream over;
 * until then this phase's closer closes it.
 */
import type { SignalEventStream } from '@e2e-col/signal-cli'
import { messageOf } from '../error-code.ts'
import { SidecarError } from '../errors.ts'
import { checkDaemon, type DaemonFacts } from '../startup.ts'
import type { Basics, Phase } from './phase.ts'

export interface Daemon {
  readonly facts: DaemonFacts
  /** Hands the first events stream to the events loop (once). */
  takeStream(): { first: SignalEventStream; abort: AbortController }
}

export async function checkTheDaemon(b: Pick<Basics, 'backend' | 'config' | 'links'>): Promise<Phase<Daemon>> {
  const facts = await checkDaemon(b.backend, b.config)
  // From here on an account call that says the device is gone means Signal removed it.
  b.links.start()
  const abort = new AbortController()
  let first: SignalEventStream
  try {
    first = await b.backend.openEvents(abort.signal)
  } catch (error) {
    throw new SidecarError('SIDECAR_EVENTS_FAILED', `signal-cli events stream refused: ${messageOf(error)}`, {
      cause: error,
    })
  }
  let taken = false
  return {
    part: {
      facts,
      takeStream() {
        taken = true
        return { first, abort }
      },
    },
    close: () => {
      if (!taken) first.close()
    },
  }
}
