import { useEffect, useState } from 'preact/hooks'
import { type Problem, problemOf } from '../api.js'
import { useApp } from '../app-context.js'
import { ProblemAlert } from '../common/problem-alert.js'
import { links, navigate } from '../router.js'
import { EMPTY_FORM, fieldOfTarget, formValuesOf, updateBody } from './member-fields.js'
import { focusFirstInvalid, MemberForm } from './member-form.js'
import { RefusalAlert } from './refusal-alert.js'
import { fullName, isChangedElsewhere, useMember } from './use-member.js'

/** Edits a member's profile; the save names the version read (If-Match). */
export function MemberEdit({ memberId }: { readonly memberId: string }) {
  const { t, api, announce } = useApp()
  const { member, etag, problem: loadProblem, reload } = useMember(memberId)
  const [values, setValues] = useState(EMPTY_FORM)
  const [problem, setProblem] = useState<Problem | undefined>(undefined)
  const [busy, setBusy] = useState(false)

  // The form starts from the member as read, and starts again after a reload.
  useEffect(() => {
    if (member) setValues(formValuesOf(member))
  }, [member])

  const save = async () => {
    if (!member || etag === undefined) return
    setBusy(true)
    try {
      const saved = await api.updateMember(member.memberId, updateBody(member, values), { etag })
      announce(t.memberSaved(fullName(t, saved.member)))
      navigate(links.member(member.memberId))
    } catch (error) {
      const found = problemOf(error, t, fieldOfTarget)
      setProblem(found)
      setBusy(false)
      requestAnimationFrame(() => focusFirstInvalid(found))
    }
  }

  const conflict = problem !== undefined && isChangedElsewhere(problem)
  return (
    <>
      <p class="breadcrumb">
        <a href={links.member(memberId)}>{member ? fullName(t, member) : t.backToMembers}</a>
      </p>
      <h1 tabIndex={-1}>{member ? t.editMemberHeading(fullName(t, member)) : t.members}</h1>
      {loadProblem && <ProblemAlert problem={loadProblem} />}
      {problem && (
        <RefusalAlert
          problem={problem}
          lead={t.formHasErrors}
          onReload={async () => {
            setProblem(undefined)
            await reload()
          }}
        />
      )}
      {!member && !loadProblem && <p>{t.loading}</p>}
      {member && (
        <MemberForm
          values={values}
          onChange={(field, value) => setValues((current) => ({ ...current, [field]: value }))}
          problem={conflict ? undefined : problem}
          withCredential={false}
          onSubmit={save}
        >
          <button type="submit" class="primary" disabled={busy}>
            {t.save}
          </button>
          <a class="button" href={links.member(member.memberId)}>
            {t.cancel}
          </a>
        </MemberForm>
      )}
    </>
  )
}
