/** What the toy's HTTP tests share: toys stopped after each test, and one JSON-RPC call's answer. */
import { afterEach } from 'vitest'
import { createToySignal, type ToySignal, type ToySignalOptions } from '../src/index.ts'

const running: ToySignal[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()))
})

/** A toy stopped after the test. */
export async function startToy(options: ToySignalOptions): Promise<ToySignal> {
  const toy = await createToySignal(options)
  running.push(toy)
  return toy
}

/** The parsed answer to one call with request id `id`. */
export async function rpc(toy: ToySignal, method: string, params?: Record<string, unknown>, id = 7): Promise<any> {
  const res = await fetch(`${toy.url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method, id, ...(params === undefined ? {} : { params }) }),
  })
  return res.json()
}
