import { en, type Messages } from './en.js'
import { ja } from './ja.js'

/** The languages of the app, which are also the languages the service answers in. */
export const CATALOGUES = { en, ja } satisfies Record<string, Messages>
export type Language = keyof typeof CATALOGUES
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', ja: '日本語' }

const isLanguage = (value: string | null | undefined): value is Language =>
  value === 'en' || value === 'ja'

/** The reader's saved choice, else the first of the browser's languages the app has. */
export function preferredLanguage(saved: string | null, browser: readonly string[]): Language {
  if (isLanguage(saved)) return saved
  for (const tag of browser) {
    const primary = tag.toLowerCase().split('-')[0]
    if (isLanguage(primary)) return primary
  }
  return 'en'
}
