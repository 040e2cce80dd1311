import { useState } from 'preact/hooks'
import { type Problem, problemOf } from '../api.js'
import { useApp } from '../app-context.js'
import { ProblemAlert } from '../common/problem-alert.js'
import { links, navigate } from '../router.js'
import { createBody, EMPTY_FORM, fieldOfTarget } from './member-fields.js'
import { focusFirstInvalid, MemberForm } from './member-form.js'
import { fullName } from './use-member.js'

export function MemberCreate() {
  const { t, api, announce } = useApp()
  const [values, setValues] = useState(EMPTY_FORM)
  const [problem, setProblem] = useState<Problem | undefined>(undefined)
  const [busy, setBusy] = useState(false)

  const create = async () => {
    setBusy(true)
    try {
      const { member } = await api.createMember(createBody(values))
      announce(t.memberCreated(fullName(t, member)))
      navigate(links.member(member.memberId))
    } catch (error) {
      const found = problemOf(error, t, fieldOfTarget)
      // A sign id already in use is the sign id field's problem, though the service names no target.
      const refused =
        found.code === 'e.ex.mm.8001' ? { ...found, fields: { signId: [found.message] } } : found
      setProblem(refused)
      setBusy(false)
      requestAnimationFrame(() => focusFirstInvalid(refused))
    }
  }

  return (
    <>
      <h1 tabIndex={-1}>{t.newMemberHeading}</h1>
      {problem && <ProblemAlert problem={problem} lead={t.formHasErrors} />}
      <MemberForm
        values={values}
        onChange={(field, value) => setValues((current) => ({ ...current, [field]: value }))}
        problem={problem}
        withCredential
        onSubmit={create}
      >
        <button type="submit" class="primary" disabled={busy}>
          {t.createMember}
        </button>
        <a class="button" href={links.members()}>
          {t.cancel}
        </a>
      </MemberForm>
    </>
  )
}
