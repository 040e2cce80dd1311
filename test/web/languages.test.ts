import { describe, expect, it } from 'vitest'
import { en } from '../../web/src/i18n/en.js'
import { ja } from '../../web/src/i18n/ja.js'
import { preferredLanguage } from '../../web/src/i18n/languages.js'

describe("the web app's language", () => {
  it('is the saved choice, else the first of the browser languages it has, else English', () => {
    expect(preferredLanguage('ja', ['en-US'])).toBe('ja')
    expect(preferredLanguage(null, ['ja-JP', 'en'])).toBe('ja')
    expect(preferredLanguage(null, ['fr-FR', 'ja'])).toBe('ja')
    expect(preferredLanguage(null, ['EN-gb'])).toBe('en')
    expect(preferredLanguage(null, ['fr', 'de'])).toBe('en')
    expect(preferredLanguage(null, [])).toBe('en')
    expect(preferredLanguage('xx', ['ja'])).toBe('ja')
  })

  it('has every word in Japanese, none left in English', () => {
    const untranslated = Object.entries(en)
      .filter(([key, value]) => typeof value === 'string' && value === ja[key as keyof typeof ja])
      .map(([key]) => key)
    // The one word the same in both: the dash that stands for "no value".
    expect(untranslated).toEqual(['none'])
  })
})
