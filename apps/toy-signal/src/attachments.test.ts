import { describe, expect, it } from 'vitest'
import { attachmentId, createAttachmentStore, parseDataUri, sanitizeAttachmentId } from './attachments.ts'

describe('data URIs as signal-cli reads them', () => {
  it('reads type, file name and base64 data', () => {
    const uri = parseDataUri('data:application/octet-stream;filename=e2e-col-1.bin;base64,AAEC/w==')
    expect(uri).toEqual({
      mediaType: 'application/octet-stream',
      filename: 'e2e-col-1.bin',
      data: Buffer.from([0, 1, 2, 255]),
    })
  })

  it('defaults to text/plain, URL-decodes data without ;base64, and accepts missing padding', () => {
    expect(parseDataUri('data:,hello%20world+x')).toEqual({
      mediaType: 'text/plain',
      filename: undefined,
      data: Buffer.from('hello world x'),
    })
    expect(parseDataUri('data:image/png;base64,AAE')?.data).toEqual(Buffer.from([0, 1]))
  })

  it('is no data URI (so a path) without data, with foreign base64 characters, or a broken escape', () => {
    for (const bad of [
      'data:text/plain;base64,',
      'data:text/plain;base64,AA-_',
      'data:text/plain;base64,A',
      '/tmp/file.bin',
      'data:,%zz',
    ])
      expect(parseDataUri(bad)).toBeUndefined()
  })
})

describe('attachment ids and store', () => {
  it('files an attachment under its remote id and the extension of its name, else of its type', () => {
    expect(attachmentId('abc', 'x.tar.gz', 'application/octet-stream')).toBe('abc.gz')
    expect(attachmentId('abc', undefined, 'image/png')).toBe('abc.png')
    expect(attachmentId('abc', 'noext', 'application/octet-stream')).toBe('abc')
    expect(sanitizeAttachmentId('../../etc/passwd')).toBe('.._.._etc_passwd')
  })

  it('keeps attachments per account and drops the oldest beyond its byte and count bounds', () => {
    const store = createAttachmentStore({ maxBytes: 10, maxCount: 3 })
    store.put('+1', 'a', Buffer.alloc(4))
    store.put('+1', 'b', Buffer.alloc(4))
    expect(store.get('+2', 'a')).toBeUndefined()
    store.put('+1', 'c', Buffer.alloc(4))
    expect(store.get('+1', 'a')).toBeUndefined()
    expect(store.bytes).toBe(8)
    store.put('+1', 'd', Buffer.alloc(1))
    store.put('+1', 'e', Buffer.alloc(1))
    expect([store.count, store.get('+1', 'b')]).toEqual([3, undefined])
  })
})
