import { type Static, type TObject, type TProperties, type TUnsafe, Type } from 'typebox'
import { DATE_RULE, KEYWORD } from '../validation/keywords.js'

/**
 * Builders for input fields. Every input field admits its JSON type or null, defaults
 * to null when absent, and lists its contract constraints as schema keywords, so the
 * one schema drives validation, the details' names and order, and the OpenAPI document.
 */
export interface TextRules {
  /** NotNull: null or absent is a violation. */
  readonly notNull?: true
  /** NotEmpty: null, absent or "" is a violation. */
  readonly notEmpty?: true
  /** Null: any value but null is a violation (fields the service sets). */
  readonly mustBeNull?: true
  /** Size: [min, max] length in characters; `null` passes. */
  readonly size?: readonly [number, number]
  /** Email: a well-formed address; "" passes. */
  readonly email?: true
  /** Past: a date or date-time before now. */
  readonly past?: true
  /** ExistInCodeList: the value is a code of this list. */
  readonly codeList?: string
  /** The value's type: plain text, a date (yyyy-MM-dd) or a date-time (ISO 8601). */
  readonly format?: 'date' | 'date-time'
  readonly description?: string
}

type Required = { readonly notNull: true } | { readonly notEmpty: true }

function textSchema(rules: TextRules): Record<string, unknown> {
  const [minLength, maxLength] = rules.size ?? []
  return {
    type: ['string', 'null'],
    default: null,
    ...(rules.format && { format: rules.format }),
    ...(rules.email && { format: 'email' }),
    ...(minLength !== undefined && minLength > 0 && { minLength }),
    ...(maxLength !== undefined && { maxLength }),
    ...(rules.format === 'date' && { description: DATE_RULE }),
    ...(rules.description && { description: rules.description }),
    [KEYWORD.wellFormed]: true,
    ...(rules.notNull && { [KEYWORD.notNull]: true }),
    ...(rules.notEmpty && { [KEYWORD.notEmpty]: true }),
    ...(rules.mustBeNull && { [KEYWORD.mustBeNull]: true }),
    ...(rules.past && { [KEYWORD.past]: true }),
    ...(rules.codeList && { [KEYWORD.codeList]: rules.codeList }),
  }
}

/** A text input field; its static type is `string` once NotNull or NotEmpty has held. */
export function text(rules: TextRules & Required): TUnsafe<string>
export function text(rules?: TextRules): TUnsafe<string | null>
export function text(rules: TextRules = {}): TUnsafe<string | null> {
  return Type.Unsafe<string | null>(textSchema(rules))
}

/** A boolean input field (true, false or null). */
export function flag(description?: string): TUnsafe<boolean | null> {
  return Type.Unsafe<boolean | null>({
    type: ['boolean', 'null'],
    default: null,
    ...(description && { description }),
  })
}

export interface ObjectRules {
  readonly notNull?: true
  readonly mustBeNull?: true
  /** The name of the object's schema in the OpenAPI document. */
  readonly title?: string
}

/**
 * A nested object field (or null): its own fields, no others. NotNull makes it
 * required; Null makes any object a violation (the Update group's credential).
 */
export function object<T extends TProperties>(
  properties: T,
  rules: ObjectRules & { readonly notNull: true },
): TUnsafe<Static<TObject<T>>>
export function object<T extends TProperties>(properties: T, rules: ObjectRules): TUnsafe<null>
export function object<T extends TProperties>(
  properties: T,
  rules: ObjectRules,
): TUnsafe<Static<TObject<T>> | null> {
  return Type.Unsafe<Static<TObject<T>> | null>({
    type: ['object', 'null'],
    default: null,
    ...(rules.title && { title: rules.title }),
    properties,
    additionalProperties: false,
    ...(rules.notNull && { [KEYWORD.notNull]: true }),
    ...(rules.mustBeNull && { [KEYWORD.mustBeNull]: true }),
  })
}
