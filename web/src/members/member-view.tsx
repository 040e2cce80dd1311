import { useState } from 'preact/hooks'
import type { Member } from '../../../clients/typescript/src/client.js'
import { type Problem, problemOf } from '../api.js'
import { useApp } from '../app-context.js'
import { ConfirmDialog } from '../common/confirm-dialog.js'
import { ProblemAlert } from '../common/problem-alert.js'
import { links, navigate } from '../router.js'
import { RefusalAlert } from './refusal-alert.js'
import { fullName, useMember } from './use-member.js'

/** A date-time of the service (UTC) in the reader's language and time zone. */
export function dateTime(value: string | null | undefined, language: string): string | undefined {
  if (!value) return undefined
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(value),
  )
}

function Details({ member }: { readonly member: Member }) {
  const { t, language } = useApp()
  const rows: [string, string | null | undefined][] = [
    [t.memberId, member.memberId],
    [t.firstName, member.firstName],
    [t.lastName, member.lastName],
    [t.genderCode, t.genders[member.genderCode]],
    [t.dateOfBirth, member.dateOfBirth],
    [t.emailAddress, member.emailAddress],
    [t.telephoneNumber, member.telephoneNumber],
    [t.zipCode, member.zipCode],
    [t.address, member.address],
    [t.signId, member.credential.signId],
    [t.passwordLastChangedAt, dateTime(member.credential.passwordLastChangedAt, language)],
    [t.createdAt, dateTime(member.createdAt, language)],
    [t.lastModifiedAt, dateTime(member.lastModifiedAt, language)],
  ]
  return (
    <dl class="details">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value ?? t.none}</dd>
        </div>
      ))}
    </dl>
  )
}

/** One member: its fields, Edit, and Delete after a confirmation. */
export function MemberView({ memberId }: { readonly memberId: string }) {
  const { t, api, announce } = useApp()
  const { member, etag, problem, reload } = useMember(memberId)
  const [confirming, setConfirming] = useState(false)
  const [refusal, setRefusal] = useState<Problem | undefined>(undefined)

  const remove = async () => {
    setConfirming(false)
    if (!member) return
    try {
      // If-Match: a member someone changed since this page read it is not deleted unseen.
      await api.deleteMember(member.memberId, etag === undefined ? {} : { etag })
      announce(t.memberDeleted(fullName(t, member)))
      navigate(links.members())
    } catch (error) {
      setRefusal(problemOf(error, t))
    }
  }

  return (
    <>
      <p class="breadcrumb">
        <a href={links.members()}>{t.backToMembers}</a>
      </p>
      <h1 tabIndex={-1}>{member ? fullName(t, member) : t.members}</h1>
      {problem && <ProblemAlert problem={problem} />}
      {refusal && (
        <RefusalAlert
          problem={refusal}
          onReload={async () => {
            setRefusal(undefined)
            await reload()
          }}
        />
      )}
      {!member && !problem && <p>{t.loading}</p>}
      {member && (
        <>
          <Details member={member} />
          <div class="actions">
            <a class="button primary" href={links.editMember(member.memberId)}>
              {t.edit}
            </a>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              {t.delete}
            </button>
          </div>
          <ConfirmDialog
            open={confirming}
            heading={t.confirmDeleteHeading}
            text={t.confirmDelete(fullName(t, member))}
            confirm={t.delete}
            onConfirm={remove}
            onCancel={() => setConfirming(false)}
          />
        </>
      )}
    </>
  )
}
