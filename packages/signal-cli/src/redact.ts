/**
 * Phone numbers never reach logs or error messages in full: `+33612345678` becomes `+33…78`.
 */
const E164_ANYWHERE = /\+[1-9][0-9]{6,14}/g

/** Masks one E.164 number, keeping the country prefix and the last two digits. */
export function maskNumber(number: string): string {
  return number.length <= 5 ? '+…' : `${number.slice(0, 3)}…${number.slice(-2)}`
}

/** Masks every E.164-looking number inside a free text (daemon error messages, URLs). */
export function maskNumbersIn(text: string): string {
  return text.replace(E164_ANYWHERE, maskNumber)
}
