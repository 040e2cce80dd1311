import Negotiator from 'negotiator'
import { type Catalogue, en, type MessageKey } from './en.js'
import { ja } from './ja.js'

export type { MessageKey } from './en.js'

const CATALOGUES = { en, ja } as const satisfies Record<string, Catalogue>
export type Locale = keyof typeof CATALOGUES
const LOCALES = Object.keys(CATALOGUES) as Locale[]
const DEFAULT_LOCALE: Locale = 'en'

/** Picks the catalogue by Accept-Language (q-values, `ja-JP` matches `ja`); English otherwise. */
export function resolveLocale(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return DEFAULT_LOCALE
  const [best] = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).languages(
    LOCALES,
  )
  return (best as Locale | undefined) ?? DEFAULT_LOCALE
}

export type MessageArgs = Readonly<Record<string, string | number>>

/** Fills `{name}` placeholders; an unknown placeholder is left as written. */
export function fill(template: string, args: MessageArgs = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(args, name) ? String(args[name]) : whole,
  )
}

/** The service's own message `key` in `locale` (a resource's are in its own, resources/todo/api/errors.ts). */
export function message(locale: Locale, key: MessageKey, args: MessageArgs = {}): string {
  return fill(CATALOGUES[locale][key], args)
}
