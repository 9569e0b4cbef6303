import { describe, expect, it } from 'vitest'
import { chatGroupName, MAX_TOPIC_SLUG, slugify } from './group-name.ts'

describe('chat group name', () => {
  it('is e2e-col-<host>-<slug> outside tmux', () => {
    expect(chatGroupName({ host: 'devbox', topic: 'Review PR #42!' })).toBe('e2e-col-devbox-review-pr-42')
  })

  it('puts the tmux session between host and topic', () => {
    expect(chatGroupName({ host: 'devbox', tmuxSession: 'work', topic: 'review' })).toBe('e2e-col-devbox-work-review')
  })

  it('lowercases and turns runs of non-alphanumerics into one dash, trimmed', () => {
    expect(slugify('  --Hello,   World!!  ')).toBe('hello-world')
    expect(chatGroupName({ host: 'My_Laptop.local', topic: '__Fix   the   BUG__' })).toBe(
      'e2e-col-my-laptop-local-fix-the-bug',
    )
  })

  it('folds accents instead of dropping letters', () => {
    expect(slugify('Révision du café')).toBe('revision-du-cafe')
  })

  it('cuts the topic slug to 40 characters without a trailing dash', () => {
    const name = chatGroupName({ host: 'h', topic: 'a'.repeat(39) + ' bcdef and much more text after it' })
    const slug = name.slice('e2e-col-h-'.length)
    expect(slug.length).toBeLessThanOrEqual(MAX_TOPIC_SLUG)
    expect(slug).toBe('a'.repeat(39))
  })

  it('uses "chat" for a topic with no alphanumerics', () => {
    expect(chatGroupName({ host: 'h', topic: '🎉 !!!' })).toBe('e2e-col-h-chat')
  })

  it('drops an empty tmux session name', () => {
    expect(chatGroupName({ host: 'h', tmuxSession: '***', topic: 't' })).toBe('e2e-col-h-t')
  })

  it('takes --group-name verbatim when given', () => {
    expect(chatGroupName({ host: 'h', topic: 't', override: '  My Review Group ' })).toBe('My Review Group')
    expect(chatGroupName({ host: 'h', topic: 't', override: '   ' })).toBe('e2e-col-h-t')
  })
})
