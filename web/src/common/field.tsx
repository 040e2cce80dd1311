import type { ComponentChildren } from 'preact'

export interface FieldProps {
  /** The input's id; its hint and errors get ids derived from it. */
  readonly id: string
  readonly label: string
  readonly hint?: string | undefined
  readonly errors?: readonly string[] | undefined
  /** The input, which must take describedBy(...) and invalid(...) from this module. */
  readonly children: ComponentChildren
}

const hintId = (id: string) => `${id}-hint`
const errorId = (id: string) => `${id}-error`

/** The attributes that tie an input to its Field's hint and errors. */
export function describedBy(id: string, hint: string | undefined, errors?: readonly string[]) {
  const ids = [hint && hintId(id), errors && errors.length > 0 && errorId(id)].filter(Boolean)
  return {
    id,
    ...(ids.length > 0 && { 'aria-describedby': ids.join(' ') }),
    ...(errors && errors.length > 0 && { 'aria-invalid': true as const }),
  }
}

/** A label, the input, its hint, and the service's messages about its value. */
export function Field({ id, label, hint, errors, children }: FieldProps) {
  return (
    <div class={errors && errors.length > 0 ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <p class="hint" id={hintId(id)}>
          {hint}
        </p>
      )}
      {errors && errors.length > 0 && (
        <ul class="field-errors" id={errorId(id)}>
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  )
}
