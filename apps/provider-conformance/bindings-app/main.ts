// One page, the editor named in the address (`?editor=tiptap`, `lexical` or `monaco`).
const editor = new URLSearchParams(location.search).get('editor')
if (editor === 'tiptap') await import('./tiptap.ts')
else if (editor === 'lexical') await import('./lexical.ts')
else if (editor === 'monaco') await import('./monaco.ts')
else throw new Error(`?editor= must be tiptap, lexical or monaco, not ${editor}`)
