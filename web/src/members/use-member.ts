import { useCallback, useEffect, useState } from 'preact/hooks'
import type { Member } from '../../../clients/typescript/src/client.js'
import { type Problem, problemOf } from '../api.js'
import { useApp } from '../app-context.js'
import type { Messages } from '../i18n/en.js'

export interface LoadedMember {
  readonly member: Member | undefined
  /** The version read, sent back as If-Match so that a change never overwrites another. */
  readonly etag: string | undefined
  readonly problem: Problem | undefined
  /** Reads the member again; resolves with what was read. */
  readonly reload: () => Promise<Member | undefined>
}

/** One member by id, read when the page opens and again on `reload`. */
export function useMember(memberId: string): LoadedMember {
  const { api, t } = useApp()
  const [state, setState] = useState<Omit<LoadedMember, 'reload'>>({
    member: undefined,
    etag: undefined,
    problem: undefined,
  })
  const reload = useCallback(async () => {
    try {
      const { member, etag } = await api.getMember(memberId)
      setState({ member, etag, problem: undefined })
      return member
    } catch (error) {
      setState({ member: undefined, etag: undefined, problem: problemOf(error, t) })
      return undefined
    }
  }, [api, t, memberId])
  useEffect(() => {
    void reload()
  }, [reload])
  return { ...state, reload }
}

/** The member's name in the order of the reader's language. */
export const fullName = (t: Messages, member: Pick<Member, 'firstName' | 'lastName'>) =>
  t.fullName(member.firstName, member.lastName)

/**
 * The change was refused because the member is no longer the version this page read:
 * 412 (If-Match did not match) or 409 e.ex.fw.8002 (a write in between).
 */
export const isChangedElsewhere = (problem: Problem) =>
  problem.status === 412 || problem.code === 'e.ex.fw.8002'
