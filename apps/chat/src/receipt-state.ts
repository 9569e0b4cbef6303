/**
 * The life of one accepted message, shown to the operator as a reaction on it. Below the loop and
 * the console both: the loop advances it (loop/receipts.ts), the console port shows it.
 */
export type ReceiptState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled'
