import { useEffect, useRef, useState } from 'preact/hooks'
import type { Todo } from '../../../clients/typescript/src/client.js'
import { type Problem, problemOf } from '../api.js'
import { useApp } from '../app-context.js'
import { describedBy, Field } from '../common/field.js'
import { ProblemAlert } from '../common/problem-alert.js'

/** Open todos first, each group in the service's order (oldest first). */
const openFirst = (todos: readonly Todo[]): Todo[] => [
  ...todos.filter((todo) => !todo.finished),
  ...todos.filter((todo) => todo.finished),
]

/** The todo list: add, finish and delete, with the service's own messages when it refuses. */
export function TodoPage() {
  const { t, api, announce } = useApp()
  const [todos, setTodos] = useState<readonly Todo[] | undefined>(undefined)
  const [title, setTitle] = useState('')
  const [titleErrors, setTitleErrors] = useState<readonly string[]>([])
  const [problem, setProblem] = useState<Problem | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const titleInput = useRef<HTMLInputElement>(null)
  const list = useRef<HTMLUListElement>(null)

  const reload = async () => {
    try {
      setTodos(await api.listTodos())
    } catch (error) {
      setProblem(problemOf(error, t))
    }
  }
  // Read once when the page opens; each action reads the list again after itself.
  useEffect(() => {
    void reload()
  }, [])

  /**
   * Runs one call on a todo; a refusal is shown, and the list is read again so that it
   * shows the truth. The item may move or go, so focus goes back to the list.
   */
  const act = async (call: () => Promise<string>) => {
    if (busy) return
    setBusy(true)
    setProblem(undefined)
    try {
      announce(await call())
    } catch (error) {
      setProblem(problemOf(error, t))
    } finally {
      setBusy(false)
      await reload()
      ;(list.current ?? titleInput.current)?.focus()
    }
  }

  const add = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setProblem(undefined)
    try {
      const { todo } = await api.createTodo({ todoTitle: title })
      setTitle('')
      setTitleErrors([])
      announce(t.todoAdded(todo.todoTitle))
      await reload()
    } catch (error) {
      const found = problemOf(error, t, (target) => (target === 'todoTitle' ? target : undefined))
      const forTitle = found.fields.todoTitle ?? []
      setTitleErrors(forTitle)
      if (forTitle.length === 0) setProblem(found)
    } finally {
      setBusy(false)
      titleInput.current?.focus()
    }
  }

  const open = todos?.filter((todo) => !todo.finished).length ?? 0
  return (
    <>
      <h1 tabIndex={-1}>{t.todos}</h1>
      <form class="add-todo" onSubmit={add} noValidate>
        <Field id="todo-title" label={t.todoTitle} hint={t.todoTitleHint} errors={titleErrors}>
          <input
            ref={titleInput}
            {...describedBy('todo-title', t.todoTitleHint, titleErrors)}
            type="text"
            autocomplete="off"
            value={title}
            onInput={(event) => setTitle(event.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="primary" disabled={busy}>
          {t.add}
        </button>
      </form>
      {problem && <ProblemAlert problem={problem} />}
      {todos === undefined ? (
        !problem && <p>{t.loading}</p>
      ) : todos.length === 0 ? (
        <p class="empty">{t.noTodos}</p>
      ) : (
        <>
          <p class="counts">{t.todoCounts(open, todos.length - open)}</p>
          <ul class="todos" aria-label={t.todoList} ref={list} tabIndex={-1}>
            {openFirst(todos).map((todo) => (
              <li key={todo.todoId} class={todo.finished ? 'todo finished' : 'todo'}>
                <span class="todo-title">{todo.todoTitle}</span>
                {todo.finished && <span class="badge">{t.finishedMark}</span>}
                <span class="actions">
                  {!todo.finished && (
                    <button
                      type="button"
                      onClick={() =>
                        act(async () => {
                          await api.finishTodo(todo.todoId)
                          return t.todoFinished(todo.todoTitle)
                        })
                      }
                    >
                      {t.finish}
                    </button>
                  )}
                  <button
                    type="button"
                    class="danger"
                    onClick={() =>
                      act(async () => {
                        await api.deleteTodo(todo.todoId)
                        return t.todoDeleted(todo.todoTitle)
                      })
                    }
                  >
                    {t.delete}
                  </button>
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  )
}
