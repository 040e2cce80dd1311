import type { ComponentChildren } from 'preact'
import type { Problem } from '../api.js'
import { useApp } from '../app-context.js'

/** A failed call, said at once (role="alert"), with the service's reference for support. */
export function ProblemAlert({
  problem,
  lead,
  children,
}: {
  readonly problem: Problem
  /** Said before the service's message, e.g. what the failure means for the form. */
  readonly lead?: string
  readonly children?: ComponentChildren
}) {
  const { t } = useApp()
  return (
    <div class="alert" role="alert">
      {lead && <p class="alert-lead">{lead}</p>}
      <p>{problem.message}</p>
      {problem.others.length > 0 && (
        <ul>
          {problem.others.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
      {problem.trackId && <p class="reference">{t.reference(problem.trackId)}</p>}
      {children}
    </div>
  )
}
