import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { apiFor } from './api.js'
import { App, type AppContext, useApp } from './app-context.js'
import { CATALOGUES, LANGUAGE_NAMES, type Language, preferredLanguage } from './i18n/languages.js'
import { MemberCreate } from './members/member-create.js'
import { MemberDirectory } from './members/member-directory.js'
import { MemberEdit } from './members/member-edit.js'
import { MemberView } from './members/member-view.js'
import { links, type Route, useRoute } from './router.js'
import { TodoPage } from './todos/todo-page.js'

const LANGUAGE_KEY = 'language'
/** How long a status line ("Saved …") stays. */
const NOTICE_MS = 10_000

function Page({ route }: { readonly route: Route }) {
  switch (route.page) {
    case 'todos':
      return <TodoPage />
    case 'members':
      return <MemberDirectory query={route.query} />
    case 'member-new':
      return <MemberCreate />
    case 'member':
      return <MemberView key={route.memberId} memberId={route.memberId} />
    case 'member-edit':
      return <MemberEdit key={route.memberId} memberId={route.memberId} />
    case 'not-found':
      return <NotFound />
  }
}

function NotFound() {
  const { t } = useApp()
  return (
    <>
      <h1 tabIndex={-1}>{t.notFoundPage}</h1>
      <p>
        <a href={links.todos()}>{t.todos}</a>
      </p>
    </>
  )
}

/** The frame of every page: navigation, the language switch, the status line, the page. */
export function WebApp() {
  const [language, setLanguage] = useState<Language>(() =>
    preferredLanguage(localStorage.getItem(LANGUAGE_KEY), navigator.languages),
  )
  const [notice, setNotice] = useState('')
  const route = useRoute()
  const main = useRef<HTMLElement>(null)
  const context = useMemo<AppContext>(
    () => ({ language, t: CATALOGUES[language], api: apiFor(language), announce: setNotice }),
    [language],
  )
  const { t } = context

  // Before the page is painted, so that nothing reads the new words under the old language.
  useLayoutEffect(() => {
    document.documentElement.lang = language
    document.title = t.htmlTitle
  }, [language, t])

  // A new page: its heading takes the focus, so that keyboards and screen readers start
  // there. A new search on the same page (sort, page size, paging) keeps the focus where it is.
  const pageKey = 'memberId' in route ? `${route.page}/${route.memberId}` : route.page
  const first = useRef(true)
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus()
  }, [pageKey])

  useEffect(() => {
    if (notice === '') return
    const clear = setTimeout(() => setNotice(''), NOTICE_MS)
    return () => clearTimeout(clear)
  }, [notice])

  const current = route.page === 'todos' ? 'todos' : route.page === 'not-found' ? '' : 'members'
  return (
    <App.Provider value={context}>
      {/* A button, not a link to #main: the fragment names the page (router.ts). */}
      <button
        type="button"
        class="skip"
        onClick={() => main.current?.querySelector<HTMLElement>('h1')?.focus()}
      >
        {t.skipToContent}
      </button>
      <header class="top">
        <span class="brand">{t.appName}</span>
        <nav aria-label={t.mainNavigation}>
          <a href={links.todos()} {...(current === 'todos' && { 'aria-current': 'page' })}>
            {t.todos}
          </a>
          <a href={links.members()} {...(current === 'members' && { 'aria-current': 'page' })}>
            {t.members}
          </a>
        </nav>
        <label class="language">
          <span>{t.language}</span>
          <select
            value={language}
            onChange={(event) => {
              const chosen = event.currentTarget.value as Language
              localStorage.setItem(LANGUAGE_KEY, chosen)
              setLanguage(chosen)
            }}
          >
            {(Object.keys(LANGUAGE_NAMES) as Language[]).map((code) => (
              <option key={code} value={code} lang={code}>
                {LANGUAGE_NAMES[code]}
              </option>
            ))}
          </select>
        </label>
      </header>
      <main id="main" ref={main}>
        <p class="notice" role="status">
          {notice}
        </p>
        <Page route={route} />
      </main>
    </App.Provider>
  )
}
