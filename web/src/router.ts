import { useEffect, useState } from 'preact/hooks'

/**
 * The app's pages, addressed by the URL's fragment (`/#/members/AbCdE12345`), so that
 * every page is the one document the service serves at `/`: the service answers its
 * contract's 404 for every other path.
 */
export type Route =
  | { readonly page: 'todos' }
  | { readonly page: 'members'; readonly query: URLSearchParams }
  | { readonly page: 'member-new' }
  | { readonly page: 'member'; readonly memberId: string }
  | { readonly page: 'member-edit'; readonly memberId: string }
  | { readonly page: 'not-found' }

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2)
  const parts = path.split('/').filter((part) => part !== '')
  const [first, second, third] = parts.map(decodeURIComponent)
  if (parts.length === 0 || (first === 'todos' && parts.length === 1)) return { page: 'todos' }
  if (first !== 'members' || parts.length > 3) return { page: 'not-found' }
  if (second === undefined) return { page: 'members', query: new URLSearchParams(search) }
  if (second === 'new' && third === undefined) return { page: 'member-new' }
  if (third === undefined) return { page: 'member', memberId: second }
  if (third === 'edit') return { page: 'member-edit', memberId: second }
  return { page: 'not-found' }
}

export const links = {
  todos: () => '#/',
  members: (query?: URLSearchParams) =>
    query && query.size > 0 ? `#/members?${query.toString()}` : '#/members',
  newMember: () => '#/members/new',
  member: (memberId: string) => `#/members/${encodeURIComponent(memberId)}`,
  editMember: (memberId: string) => `#/members/${encodeURIComponent(memberId)}/edit`,
}

export function navigate(link: string): void {
  window.location.hash = link
}

/** The page the URL names, following the browser's back and forward buttons. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash))
  useEffect(() => {
    const follow = () => setRoute(parseRoute(window.location.hash))
    window.addEventListener('hashchange', follow)
    return () => window.removeEventListener('hashchange', follow)
  }, [])
  return route
}
