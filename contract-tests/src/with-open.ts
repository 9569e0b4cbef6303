/** A stream or probe a case opens, used, then closed whether the case passed or failed. */
export async function withOpen<R extends { close(): void }, T>(
  resource: R | Promise<R>,
  body: (resource: R) => Promise<T>,
): Promise<T> {
  const opened = await resource
  try {
    return await body(opened)
  } finally {
    opened.close()
  }
}
