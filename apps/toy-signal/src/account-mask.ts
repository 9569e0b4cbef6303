/** Shortens a phone number for logs: `+4915…89`. Numbers never reach logs in full. */
export function maskNumber(number: string): string {
  if (number.length <= 6) return '…'
  return `${number.slice(0, 5)}…${number.slice(-2)}`
}
