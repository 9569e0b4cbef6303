/**
 * A Yjs v1 update decoded by Yjs itself, through a decoder subclass that notes two things Yjs does
 * not tell: whether a client's section appears twice (Yjs writes each client once; applying an
 * update that repeats one keeps only the last, so what it seems to carry is not what it gives), and
 * whether the reading used the whole payload (Yjs stops at the end of what it needs and ignores
 * anything after it).
 */
import * as Y from 'yjs'

export interface DecodedSections {
  readonly structs: ReturnType<typeof Y.decodeUpdate>['structs']
  readonly ds: ReturnType<typeof Y.decodeUpdate>['ds']
  /** A client's section appeared more than once. */
  readonly repeated: boolean
  /** The reading ended exactly at the payload's last byte. */
  readonly exact: boolean
}

/** @throws Error from Yjs on a malformed update */
export function decodeSections(update: Uint8Array): DecodedSections {
  let reader: { pos: number; arr: Uint8Array } | undefined
  const clients = new Set<number>()
  let repeated = false
  class Watched extends Y.UpdateDecoderV1 {
    constructor(decoder: ConstructorParameters<typeof Y.UpdateDecoderV1>[0]) {
      super(decoder)
      reader = decoder as unknown as { pos: number; arr: Uint8Array }
    }
    override readClient(): number {
      const client = super.readClient()
      if (clients.has(client)) repeated = true
      clients.add(client)
      return client
    }
  }
  const { structs, ds } = Y.decodeUpdateV2(update, Watched)
  const exact = reader !== undefined && reader.arr === update && reader.pos === update.length
  return { structs, ds, repeated, exact }
}
