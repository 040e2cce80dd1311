import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { DATABASES } from '../helpers/databases.js'
import { samples } from '../helpers/metrics.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The manual's "What to alert on" (docs/operations/observing.md) cannot drift from the
 * service: every metric its table, its prose and its Prometheus rules name is one that
 * /metrics serves (or one of the few it says are another program's), every label a rule
 * matches on is one the metric carries, and with `=` a value it takes; the rules parse as
 * YAML, in Prometheus' shape, and the table and the rules name the same metrics.
 */

const PAGE = join(import.meta.dirname, '..', '..', 'docs', 'operations', 'observing.md')
const HEADING = '## What to alert on'

/** Metrics an alert may name that the service does not export, and whose they are. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  up: "Prometheus' own, for every scrape",
  probe_success: "a blackbox exporter's",
  node_filesystem_avail_bytes: "the node exporter's",
  node_filesystem_size_bytes: "the node exporter's",
}

/** Metrics with no sample on SQLite, where there is no pool to count. */
const POSTGRES_ONLY = new Set(['db_pool_connections'])

/** PromQL words that are not metric names: operators, modifiers, aggregations, functions. */
const PROMQL_WORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
])

function section(): string {
  const page = readFileSync(PAGE, 'utf8')
  const start = page.indexOf(`\n${HEADING}\n`)
  if (start < 0) throw new Error(`${PAGE} has no "${HEADING}"`)
  const end = page.indexOf('\n## ', start + HEADING.length + 2)
  return page.slice(start, end < 0 ? undefined : end)
}

const SECTION = section()
const FENCES = [...SECTION.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)]
const PROSE = SECTION.replace(/^```\w*\n[\s\S]*?^```$/gm, '')
/** The section's table rows: what the rules must say too. */
const TABLE = PROSE.split('\n')
  .filter((line) => line.startsWith('|'))
  .join('\n')

interface Rule {
  readonly alert: string
  readonly expr: string
  readonly for?: string
  readonly labels?: Record<string, string>
  readonly annotations?: Record<string, string>
}

function rulesOf(): Rule[] {
  const blocks = FENCES.filter(([, language]) => language === 'yaml')
  expect(blocks.length).toBe(1)
  const document = parse(blocks[0]?.[2] ?? '') as { groups?: { name?: string; rules?: Rule[] }[] }
  expect(Array.isArray(document.groups)).toBe(true)
  return (document.groups ?? []).flatMap((group) => {
    expect(typeof group.name).toBe('string')
    return group.rules ?? []
  })
}

/** A metric name a piece of text names, with the matchers written beside it. */
interface Selector {
  readonly name: string
  readonly matchers: readonly { label: string; op: string; value: string }[]
}

function matchersOf(braces: string | undefined): Selector['matchers'] {
  return [...(braces ?? '').matchAll(/(\w+)\s*(=~|!=|!~|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(
    ([, label, op, value]) => ({
      label: label as string,
      op: op as string,
      value: value as string,
    }),
  )
}

/**
 * The series selectors of a PromQL expression: each name not followed by `(` (a function
 * or an aggregation), without the label lists of `by (…)` and the like, the ranges and the
 * numbers.
 */
function selectorsOfExpression(expr: string): Selector[] {
  const text = expr
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
  return [...text.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g)]
    .filter(([, name, , call]) => call === undefined && !PROMQL_WORDS.has(name as string))
    .map(([, name, braces]) => ({ name: name as string, matchers: matchersOf(braces) }))
}

/** The metric names written in backquotes in prose: `name` or `name{label="value"}`. */
function selectorsOfProse(text: string): Selector[] {
  return [...text.matchAll(/`([a-z_][a-z0-9_]*)(\{[^`]*\})?`/g)]
    .filter(([, name]) => (name as string).includes('_'))
    .map(([, name, braces]) => ({ name: name as string, matchers: matchersOf(braces) }))
}

/**
 * The names /metrics serves, each with the name of the samples that carry its labels: its
 * own, or for a histogram's or a summary's family name, its `_count` series.
 */
function exportedNames(exposition: string): Map<string, string> {
  const names = new Map<string, string>()
  for (const [, family, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const suffixes =
      type === 'histogram'
        ? ['_bucket', '_sum', '_count']
        : type === 'summary'
          ? ['_sum', '_count']
          : []
    names.set(family as string, suffixes.length > 0 ? `${family}_count` : (family as string))
    for (const suffix of suffixes) names.set(`${family}${suffix}`, `${family}${suffix}`)
  }
  return names
}

/** Each sample's labels, as label -> value. */
function labelsOfSamples(exposition: string, name: string): Record<string, string>[] {
  return samples(exposition, name).map((line) => {
    const braces = /^[^{ ]+\{(.*)\} \S+$/.exec(line)?.[1] ?? ''
    return Object.fromEntries(
      [...braces.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, label, value]) => [label, value]),
    )
  })
}

const RULES = rulesOf()
const RULE_SELECTORS = RULES.flatMap((rule) => selectorsOfExpression(rule.expr))
const PROSE_SELECTORS = selectorsOfProse(PROSE)

describe('"What to alert on" in docs/operations/observing.md', () => {
  it("has alerting rules in Prometheus' shape, each with a severity and a summary", () => {
    expect(RULES.length).toBeGreaterThan(0)
    const names = RULES.map((rule) => rule.alert)
    expect(new Set(names).size).toBe(names.length)
    for (const rule of RULES) {
      expect(rule.alert).toMatch(/^[A-Za-z][A-Za-z0-9]*$/)
      expect(typeof rule.expr).toBe('string')
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smhd]$/)
      expect(['page', 'ticket']).toContain(rule.labels?.severity)
      expect(typeof rule.annotations?.summary).toBe('string')
      // Balanced brackets: a rule cut short would not parse in Prometheus either.
      for (const [open, close] of ['()', '{}', '[]']) {
        expect(rule.expr.split(open as string).length, `${rule.alert} ${open}${close}`).toBe(
          rule.expr.split(close as string).length,
        )
      }
      expect(selectorsOfExpression(rule.expr).length, rule.alert).toBeGreaterThan(0)
    }
  })

  it('names in its table every metric its rules use, and the other way round', () => {
    const inRules = new Set(RULE_SELECTORS.map(({ name }) => name))
    const inTable = new Set(selectorsOfProse(TABLE).map(({ name }) => name))
    const familyOf = (name: string) => name.replace(/_bucket$/, '')
    expect(
      [...inTable].filter((name) => ![...inRules].some((used) => familyOf(used) === name)),
    ).toEqual([])
    const said = new Set(PROSE_SELECTORS.map(({ name }) => name))
    expect(
      [...inRules].filter((name) => !said.has(familyOf(name)) && !(name in ELSEWHERE)),
    ).toEqual([])
  })

  for (const target of DATABASES) {
    describe.skipIf(!target.available)(`against /metrics on ${target.name}`, () => {
      // The rate limit's Redis named but unreachable: its gauge is served, at 0.
      const suite = serverPerSuite(target, {
        RATE_LIMIT: '1000/second',
        REDIS_URL: 'redis://127.0.0.1:1',
      })

      async function scrape(): Promise<string> {
        const options = { contract: false } as const
        await suite.server.request('GET', '/api/v1/todos/alerted', options)
        await suite.server.request('GET', '/health/ready', options)
        const response = await suite.server.request('GET', '/metrics', options)
        expect(response.status).toBe(200)
        return response.text
      }

      it('serves every metric the section names, with the labels and values its rules match', async () => {
        const exposition = await scrape()
        const exported = exportedNames(exposition)
        const problems: string[] = []
        for (const { name, matchers } of [...RULE_SELECTORS, ...PROSE_SELECTORS]) {
          if (name in ELSEWHERE) continue
          const series = exported.get(name)
          if (series === undefined) {
            problems.push(`${name}: not served by /metrics`)
            continue
          }
          const seen = labelsOfSamples(exposition, series)
          if (seen.length === 0) {
            if (!(target.name === 'sqlite' && POSTGRES_ONLY.has(name))) {
              problems.push(`${name}: no sample to check its labels against`)
            }
            continue
          }
          for (const { label, op, value } of matchers) {
            if (!seen.some((labels) => label in labels)) {
              problems.push(`${name}: no label ${label}`)
            } else if (op === '=' && !seen.some((labels) => labels[label] === value)) {
              problems.push(`${name}: no sample with ${label}="${value}"`)
            }
          }
        }
        expect(problems).toEqual([])
      })
    })
  }
})
