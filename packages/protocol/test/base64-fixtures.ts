/** Shared inputs for the suites that hold a plugged-in base64 codec to the portable decoder's verdicts. */
import fc from 'fast-check'
import type { Base64Codec } from '../src/base64-codec.ts'
import { codeOf } from './fixtures.ts'

/** Node's lenient Buffer codec, as the sidecar plugs it in, with the scratch-writing hook. */
export const nodeCodec: Base64Codec = {
  encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  decode: (text) => Buffer.from(text, 'base64'),
  decodeInto: (text, target) =>
    Buffer.from(target.buffer, target.byteOffset, target.byteLength).write(text, 0, 'base64'),
}

/** Verdict of a decode: the bytes as hex, or the error code. */
export function verdict(f: () => Uint8Array): string {
  let bytes: Uint8Array | undefined
  const code = codeOf(() => {
    bytes = f()
  })
  return bytes === undefined ? code : `ok:${Buffer.from(bytes).toString('hex')}`
}

// Characters a lenient decoder mishandles without shortening its output, skips, or stops at.
const HOSTILE = [
  '-',
  '_',
  '=',
  ' ',
  '\n',
  '\0',
  '.',
  'é',
  '\u00ff',
  '\u0141',
  '\u0142',
  '\u0162',
  '\u2028',
  '\ufeff',
  '\ud83d',
]

/** One hostile character put into a text: where (any number, taken modulo the text's length), which, how. */
export interface Corruption {
  readonly at: number
  readonly char: string
  readonly how: 'replace' | 'insert' | 'append'
}

export const arbCorruption: fc.Arbitrary<Corruption> = fc.record({
  at: fc.nat(),
  char: fc.constantFrom(...HOSTILE),
  how: fc.constantFrom('replace' as const, 'insert' as const, 'append' as const),
})

/** `valid` with `c` applied at a position in `[from, valid.length)` (`from` keeps a prefix intact). */
export function corrupt(valid: string, c: Corruption, from = 0): string {
  const i = from + (c.at % (valid.length - from))
  if (c.how === 'replace') return valid.slice(0, i) + c.char + valid.slice(i + 1)
  if (c.how === 'insert') return valid.slice(0, i) + c.char + valid.slice(i)
  return valid + c.char
}

/** Text of up to `maxLength` characters mixing base64 digits and the hostile characters. */
export function arbHostileText(maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...'AQgw+/8A'.split(''), ...HOSTILE), maxLength })
}
