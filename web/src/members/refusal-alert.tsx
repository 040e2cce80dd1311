import type { Problem } from '../api.js'
import { useApp } from '../app-context.js'
import { ProblemAlert } from '../common/problem-alert.js'
import { isChangedElsewhere } from './use-member.js'

/**
 * A change to a member that the service refused. When someone else changed the member
 * first, it says so and offers to read the member again (`onReload`).
 */
export function RefusalAlert({
  problem,
  lead,
  onReload,
}: {
  readonly problem: Problem
  /** Said first when the refusal is of another kind (e.g. fields to correct). */
  readonly lead?: string
  readonly onReload: () => void
}) {
  const { t } = useApp()
  const conflict = isChangedElsewhere(problem)
  const said = conflict ? t.changedElsewhere : lead
  return (
    <ProblemAlert problem={problem} {...(said !== undefined && { lead: said })}>
      {conflict && (
        <button type="button" class="primary" onClick={onReload}>
          {t.reload}
        </button>
      )}
    </ProblemAlert>
  )
}
