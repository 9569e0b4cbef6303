/** Waits for what a scenario expects, polling; fails naming it. Never a fixed sleep for a result. */
export async function until(what: string, check: () => boolean, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited ${withinMs} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Resolves after `ms`: only to let something that must NOT happen have its chance. */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
