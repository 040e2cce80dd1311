import { useEffect, useRef } from 'preact/hooks'
import { useApp } from '../app-context.js'

/**
 * A modal question (the browser's own <dialog>: focus moves into it, Escape cancels).
 * `confirm` names the button that goes ahead; Cancel is focused first.
 */
export function ConfirmDialog({
  open,
  heading,
  text,
  confirm,
  onConfirm,
  onCancel,
}: {
  readonly open: boolean
  readonly heading: string
  readonly text: string
  readonly confirm: string
  readonly onConfirm: () => void
  readonly onCancel: () => void
}) {
  const { t } = useApp()
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (!element) return
    if (open && !element.open) element.showModal()
    if (!open && element.open) element.close()
  }, [open])
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-heading"
      aria-describedby="confirm-text"
      onCancel={(event) => {
        event.preventDefault()
        onCancel()
      }}
    >
      <h2 id="confirm-heading">{heading}</h2>
      <p id="confirm-text">{text}</p>
      <div class="actions">
        <button type="button" onClick={onCancel} autofocus>
          {t.cancel}
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </dialog>
  )
}
