import type { ComponentChildren } from 'preact'
import type { Problem } from '../api.js'
import { useApp } from '../app-context.js'
import { describedBy, Field } from '../common/field.js'
import type { Messages } from '../i18n/en.js'
import {
  CREDENTIAL_FIELDS,
  type FieldName,
  type FormValues,
  OPTIONAL_FIELDS,
  PROFILE_FIELDS,
} from './member-fields.js'

const INPUT_TYPES: Partial<Record<FieldName, 'date' | 'email' | 'tel' | 'password'>> = {
  dateOfBirth: 'date',
  emailAddress: 'email',
  telephoneNumber: 'tel',
  signId: 'email',
  password: 'password',
}
const AUTOCOMPLETE: Partial<Record<FieldName, string>> = {
  firstName: 'given-name',
  lastName: 'family-name',
  dateOfBirth: 'bday',
  emailAddress: 'email',
  telephoneNumber: 'tel',
  zipCode: 'postal-code',
  address: 'street-address',
  signId: 'username',
  password: 'new-password',
}
const HINTS: Partial<Record<FieldName, keyof Messages>> = {
  signId: 'signIdHint',
  password: 'passwordHint',
}

export const fieldId = (field: FieldName) => `member-${field}`

/** Focuses the first field the service found fault with, else the alert. */
export function focusFirstInvalid(problem: Problem): void {
  const field = [...PROFILE_FIELDS, ...CREDENTIAL_FIELDS].find((name) => problem.fields[name])
  const target = field ? document.getElementById(fieldId(field)) : document.querySelector('.alert')
  if (target instanceof HTMLElement) {
    if (!field) target.tabIndex = -1
    target.focus()
  }
}

/**
 * The member's fields (and, on create, the credential's), each with the service's
 * messages about it. Browser-side checks are off (noValidate): the service's rules and
 * words are the ones shown.
 */
export function MemberForm({
  values,
  onChange,
  problem,
  withCredential,
  onSubmit,
  children,
}: {
  readonly values: FormValues
  readonly onChange: (field: FieldName, value: string) => void
  readonly problem: Problem | undefined
  readonly withCredential: boolean
  readonly onSubmit: () => void
  /** The form's buttons. */
  readonly children: ComponentChildren
}) {
  const { t } = useApp()
  const input = (field: FieldName) => {
    const hintKey = HINTS[field]
    const hint = hintKey ? (t[hintKey] as string) : undefined
    const errors = problem?.fields[field]
    const label = OPTIONAL_FIELDS.has(field) ? `${t[field]} ${t.optional}` : t[field]
    const common = {
      ...describedBy(fieldId(field), hint, errors),
      name: field,
      value: values[field],
      autocomplete: AUTOCOMPLETE[field] ?? 'off',
    }
    return (
      <Field key={field} id={fieldId(field)} label={label} hint={hint} errors={errors}>
        {field === 'genderCode' ? (
          <select {...common} onChange={(event) => onChange(field, event.currentTarget.value)}>
            <option value="">{t.choose}</option>
            {['0', '1', '2'].map((code) => (
              <option key={code} value={code}>
                {t.genders[code]}
              </option>
            ))}
          </select>
        ) : field === 'address' ? (
          <textarea
            {...common}
            rows={2}
            onInput={(event) => onChange(field, event.currentTarget.value)}
          />
        ) : (
          <input
            {...common}
            // Preact types each input type apart; the union is one of them at run time.
            type={(INPUT_TYPES[field] ?? 'text') as 'text'}
            onInput={(event) => onChange(field, event.currentTarget.value)}
          />
        )}
      </Field>
    )
  }
  return (
    <form
      class="member-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        onSubmit()
      }}
    >
      {PROFILE_FIELDS.map(input)}
      {withCredential && (
        <fieldset>
          <legend>{t.credential}</legend>
          {CREDENTIAL_FIELDS.map(input)}
        </fieldset>
      )}
      <div class="actions">{children}</div>
    </form>
  )
}
