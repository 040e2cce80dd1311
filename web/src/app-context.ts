import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { ApiClient } from './api.js'
import type { Messages } from './i18n/en.js'
import type { Language } from './i18n/languages.js'

export interface AppContext {
  readonly language: Language
  readonly t: Messages
  readonly api: ApiClient
  /** Says `text` in the status line (read out by screen readers), also after navigating. */
  readonly announce: (text: string) => void
}

export const App = createContext<AppContext | undefined>(undefined)

export function useApp(): AppContext {
  const context = useContext(App)
  if (context === undefined) throw new Error('useApp outside <App.Provider>')
  return context
}
