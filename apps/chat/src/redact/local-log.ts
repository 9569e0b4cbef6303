import type { Redactor } from './redactor.ts'

const PHONE = /\+\d{7,15}\b/g

/** Keeps the country code and the last two digits: `+15551234567` → `+1555…67`. */
export function maskPhone(number: string): string {
  return number.length <= 7 ? '+…' : `${number.slice(0, 5)}…${number.slice(-2)}`
}

/** A terminal log line sink that redacts secrets and shortens phone numbers on every line. */
export function createLocalLog(sink: (line: string) => void, redactor: Redactor): (line: string) => void {
  return (line) => sink(redactor.redactSync(line).replace(PHONE, maskPhone))
}
