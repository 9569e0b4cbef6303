/**
 * The e2e-col pipe in the topology of real use: the toy signal-cli daemon, sidecar A and sidecar B
 * each in their own Node process (as on three machines), the clients in the calling process (the
 * two browsers). On a 2-core machine the children can use the second core, which the one-process
 * stack (stack.ts) cannot.
 */
import { rmSync } from 'node:fs'
import type { ConnectDocOptions, DocConnection } from '@e2e-col/client'
import type * as Y from 'yjs'
import { BenchChild } from './child.ts'
import type { SendCounts } from './send-counts.ts'
import {
  ACCOUNTS,
  benchLayout,
  clientConnector,
  sidecarEnv,
  signalPaceFor,
  type BenchClient,
  type BenchStackOptions,
  type Side,
} from './stack.ts'

/** What a replay needs from a stack, whichever the topology. */
export interface ReplayStack {
  readonly docIds: readonly string[]
  connect(side: Side, docId: string, doc: Y.Doc, options?: Partial<ConnectDocOptions>): Promise<BenchClient>
  signalSends(): Promise<SendCounts>
  close(): Promise<void>
}

export async function startProcessStack(options: Omit<BenchStackOptions, 'startA'>): Promise<ReplayStack> {
  const { docIds, groups, dataDir } = benchLayout(options)
  const children: BenchChild[] = []
  const clients: DocConnection[] = []
  const close = async (): Promise<void> => {
    for (const c of clients.splice(0)) await c.close()
    // Sidecars first, so none of them sees its daemon vanish.
    for (let child = children.pop(); child !== undefined; child = children.pop()) await child.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const toy = new BenchChild('toy-child.ts')
    children.push(toy) // first in, last stopped
    const { url: toyUrl } = await toy.request<{ url: string }>(
      {
        type: 'start',
        options: { accounts: [ACCOUNTS.a, ACCOUNTS.b], groups, signalPace: signalPaceFor(options.pacing) },
        accountA: ACCOUNTS.a,
      },
      'started',
    )
    const urls: Partial<Record<Side, string>> = {}
    await Promise.all(
      (['a', 'b'] as const).map(async (side) => {
        const sidecar = new BenchChild('sidecar-child.ts')
        children.push(sidecar)
        const env = sidecarEnv(side, { toyUrl, docIds, groups, dataDir, options })
        const { port } = await sidecar.request<{ port: number }>({ type: 'start', env }, 'started')
        urls[side] = `ws://127.0.0.1:${port}`
      }),
    )
    return {
      docIds,
      connect: clientConnector(urls, clients),
      signalSends: () => toy.request<SendCounts>({ type: 'sends' }, 'sends'),
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
