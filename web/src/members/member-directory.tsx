import { useEffect, useState } from 'preact/hooks'
import type { MemberPage } from '../../../clients/typescript/src/client.js'
import { type Problem, problemOf } from '../api.js'
import { useApp } from '../app-context.js'
import { describedBy, Field } from '../common/field.js'
import { ProblemAlert } from '../common/problem-alert.js'
import type { Messages } from '../i18n/en.js'
import { links, navigate } from '../router.js'

const PAGE_SIZES = ['10', '20', '50', '100'] as const
const DEFAULT_SIZE = '20'
/** Sortable columns of the search (decisions §6), as shown. */
const COLUMNS = ['memberId', 'lastName', 'firstName', 'dateOfBirth', 'emailAddress'] as const
type Column = (typeof COLUMNS)[number]

/**
 * The search lives in the URL (`#/members?name=Ya&page=1&size=20&sort=lastName,desc`):
 * back and forward walk through searches, and a search can be bookmarked or shared.
 */
interface Search {
  readonly name: string | undefined
  readonly page: number
  readonly size: string
  readonly sort: { readonly column: string; readonly descending: boolean } | undefined
}

function searchOf(query: URLSearchParams): Search {
  const [column, direction] = (query.get('sort') ?? '').split(',')
  const page = Number.parseInt(query.get('page') ?? '0', 10)
  return {
    name: query.get('name') ?? undefined,
    page: Number.isSafeInteger(page) && page >= 0 ? page : 0,
    size: query.get('size') ?? DEFAULT_SIZE,
    sort: column ? { column, descending: direction === 'desc' } : undefined,
  }
}

function queryOf(search: Search): URLSearchParams {
  const query = new URLSearchParams()
  if (search.name !== undefined) query.set('name', search.name)
  if (search.page > 0) query.set('page', String(search.page))
  if (search.size !== DEFAULT_SIZE) query.set('size', search.size)
  if (search.sort) {
    query.set('sort', `${search.sort.column},${search.sort.descending ? 'desc' : 'asc'}`)
  }
  return query
}

const go = (search: Search) => navigate(links.members(queryOf(search)))

function SortableHeader({ column, search, t }: { column: Column; search: Search; t: Messages }) {
  const active = search.sort?.column === column ? search.sort : undefined
  const ariaSort = active ? (active.descending ? 'descending' : 'ascending') : undefined
  return (
    <th scope="col" {...(ariaSort && { 'aria-sort': ariaSort })}>
      <button
        type="button"
        class="sort"
        title={t.sortBy(t[column])}
        onClick={() =>
          go({
            ...search,
            page: 0,
            sort: { column, descending: active ? !active.descending : false },
          })
        }
      >
        {t[column]}
        <span aria-hidden="true" class="sort-mark">
          {active ? (active.descending ? '▼' : '▲') : '↕'}
        </span>
      </button>
    </th>
  )
}

function Results({ page, search }: { page: MemberPage; search: Search }) {
  const { t } = useApp()
  if (page.totalElements === 0) return <p class="empty">{t.noMatches}</p>
  return (
    <>
      {/* Scrolls sideways on a narrow screen; focusable, so that a keyboard can scroll it. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
      <section class="table-scroll" aria-label={t.searchResults} tabIndex={0}>
        <table>
          <thead>
            <tr>
              {COLUMNS.map((column) => (
                <SortableHeader key={column} column={column} search={search} t={t} />
              ))}
            </tr>
          </thead>
          <tbody>
            {page.content.map((member) => (
              <tr key={member.memberId}>
                <td>
                  <a href={links.member(member.memberId)}>{member.memberId}</a>
                </td>
                <td>{member.lastName}</td>
                <td>{member.firstName}</td>
                <td>{member.dateOfBirth}</td>
                <td>{member.emailAddress}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <nav class="pager" aria-label={t.pagination}>
        <button
          type="button"
          disabled={page.first}
          onClick={() => go({ ...search, page: page.number - 1 })}
        >
          {t.previousPage}
        </button>
        <span>{t.pageOf(page.number + 1, Math.max(page.totalPages, 1))}</span>
        <button
          type="button"
          disabled={page.last}
          onClick={() => go({ ...search, page: page.number + 1 })}
        >
          {t.nextPage}
        </button>
      </nav>
    </>
  )
}

/** Members by name prefix: paged, with a page size to choose and sortable columns. */
export function MemberDirectory({ query }: { readonly query: URLSearchParams }) {
  const { t, api } = useApp()
  const search = searchOf(query)
  const [name, setName] = useState(search.name ?? '')
  const [result, setResult] = useState<MemberPage | undefined>(undefined)
  const [problem, setProblem] = useState<Problem | undefined>(undefined)
  const queryText = query.toString()

  // The query's text is the search's identity: a new one is a new search.
  useEffect(() => {
    setName(search.name ?? '')
    setProblem(undefined)
    if (search.name === undefined) {
      setResult(undefined)
      return
    }
    let current = true
    api
      .searchMembers({
        name: search.name,
        page: search.page,
        size: Number(search.size),
        ...(search.sort && {
          sort: [`${search.sort.column},${search.sort.descending ? 'desc' : 'asc'}`],
        }),
      })
      .then(
        (page) => current && setResult(page),
        (error: unknown) => {
          if (!current) return
          setResult(undefined)
          setProblem(problemOf(error, t, (target) => (target === 'name' ? target : undefined)))
        },
      )
    return () => {
      current = false
    }
  }, [queryText, api])

  const nameErrors = problem?.fields.name
  return (
    <>
      <h1 tabIndex={-1}>{t.members}</h1>
      <p>
        <a class="button primary" href={links.newMember()}>
          {t.newMember}
        </a>
      </p>
      <form
        class="search"
        aria-label={t.memberSearch}
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          go({ ...search, name, page: 0 })
        }}
      >
        <Field id="member-name" label={t.namePrefix} hint={t.namePrefixHint} errors={nameErrors}>
          <input
            {...describedBy('member-name', t.namePrefixHint, nameErrors)}
            type="search"
            autocomplete="off"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </Field>
        <Field id="page-size" label={t.pageSize}>
          <select
            id="page-size"
            value={search.size}
            onChange={(event) =>
              go({
                ...search,
                name: search.name ?? (name === '' ? undefined : name),
                page: 0,
                size: event.currentTarget.value,
              })
            }
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" class="primary">
          {t.search}
        </button>
      </form>
      {problem && <ProblemAlert problem={problem} />}
      {result && (
        <div class="results">
          <p class="counts" aria-live="polite">
            {t.found(result.totalElements)}
          </p>
          <Results page={result} search={search} />
        </div>
      )}
    </>
  )
}
