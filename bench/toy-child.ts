/**
 * The toy signal-cli daemon in its own process (section 1's five-process topology), driven over
 * IPC through BenchChild: `start` (options) → `started` (url); `sends` → `sends` (SendCounts);
 * `stop`. Sends are counted here so only counts cross the process boundary.
 */
import { createToySignal, type ToySignal, type ToySignalOptions } from '@e2e-col/toy-signal'
import { countSends } from './send-counts.ts'
import { serveBenchRequests } from './child-serve.ts'

type Request = { type: 'start'; options: ToySignalOptions; accountA: string } | { type: 'sends' } | { type: 'stop' }

let toy: ToySignal | undefined
let accountA = ''
serveBenchRequests<Request>(async (request, reply) => {
  switch (request.type) {
    case 'start':
      toy = await createToySignal(request.options)
      accountA = request.accountA
      reply({ type: 'started', url: toy.url })
      break
    case 'sends':
      reply({
        type: 'sends',
        ...countSends(toy?.sends() ?? [], accountA, toy?.refused() ?? { messages: 0, attachments: 0 }),
      })
      break
    case 'stop':
      await toy?.close()
      process.exit(0)
  }
})
