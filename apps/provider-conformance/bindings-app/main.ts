// One page, the editor named in the address (`?editor=tiptap` or `?editor=lexical`).
const editor = new URLSearchParams(location.search).get('editor')
if (editor === 'tiptap') await import('./tiptap.ts')
else if (editor === 'lexical') await import('./lexical.ts')
else throw new Error(`?editor= must be tiptap or lexical, not ${editor}`)
