/**
 * `npm run lint:openapi`: the served OpenAPI document, linted by Spectral (.spectral.yaml,
 * the stock `spectral:oas` ruleset) and Redocly (redocly.yaml, the stock `recommended`
 * ruleset). Any error or warning from either fails the run; `redocly lint` exits 0 on
 * warnings, so both are read in their JSON formats and judged here.
 *
 * Quiet on success (one line); on failure, every finding grouped by rule, with a count
 * and the first location of each, then the full list. The document is left in
 * test-output/openapi.json for inspection. Neither tool phones home (see TOOL_ENV).
 *
 *   npm run lint:openapi            (add `-- --verbose` for every finding even on success)
 */
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { writeOpenApi } from './export-openapi.js'

const DOCUMENT = 'test-output/openapi.json'
const BIN = resolve('node_modules/.bin')
const verbose = process.argv.includes('--verbose')

/** No usage data, no update checks, no Scarf analytics. */
const TOOL_ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  SCARF_ANALYTICS: 'false',
  DO_NOT_TRACK: '1',
  NO_COLOR: '1',
}

interface Finding {
  readonly tool: 'spectral' | 'redocly'
  readonly rule: string
  readonly severity: 'error' | 'warning' | 'info' | 'hint'
  readonly message: string
  /** JSON pointer into the document, with its line when the tool gave one. */
  readonly where: string
}

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

function run(command: string, args: readonly string[]): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(resolve(BIN, command), args, { env: TOOL_ENV })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    child.on('error', fail)
    child.on('close', (code) => done({ code, stdout, stderr }))
  })
}

function pointer(path: readonly (string | number)[]): string {
  return `#/${path.map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`
}

/** Parses a tool's JSON output, or fails with everything it printed. */
function parseOutput<T>(tool: string, result: Run): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(
      `${tool} did not produce a JSON report (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
    )
  }
}

const SPECTRAL_SEVERITY = ['error', 'warning', 'info', 'hint'] as const

async function spectral(document: string): Promise<Finding[]> {
  const result = await run('spectral', [
    'lint',
    document,
    '--ruleset=.spectral.yaml',
    '--fail-severity=warn',
    '--format=json',
    '--quiet',
  ])
  // Spectral prints nothing at all (not even []) when there are no findings.
  if (result.stdout.trim() === '' && result.code === 0) return []
  const results = parseOutput<
    {
      code: string
      message: string
      severity: number
      path: (string | number)[]
      range: { start: { line: number } }
    }[]
  >('spectral', result)
  return results.map((item) => ({
    tool: 'spectral',
    rule: item.code,
    severity: SPECTRAL_SEVERITY[item.severity] ?? 'error',
    message: item.message,
    where: `${pointer(item.path)} (line ${item.range.start.line + 1})`,
  }))
}

async function redocly(document: string): Promise<Finding[]> {
  const result = await run('redocly', [
    'lint',
    document,
    '--config=redocly.yaml',
    '--format=json',
    '--max-problems=10000',
  ])
  const report = parseOutput<{
    problems: {
      ruleId: string
      severity: 'error' | 'warn'
      message: string
      location: { pointer?: string; start?: { line: number } }[]
    }[]
  }>('redocly', result)
  return report.problems.map((problem) => {
    const location = problem.location[0]
    return {
      tool: 'redocly',
      rule: problem.ruleId,
      severity: problem.severity === 'warn' ? 'warning' : 'error',
      message: problem.message,
      where: `${location?.pointer ?? '#'}${location?.start ? ` (line ${location.start.line})` : ''}`,
    }
  })
}

function summary(findings: readonly Finding[]): string {
  const groups = new Map<string, { count: number; first: Finding }>()
  for (const finding of findings) {
    const key = `${finding.tool} ${finding.severity} ${finding.rule}`
    const group = groups.get(key)
    if (group) group.count += 1
    else groups.set(key, { count: 1, first: finding })
  }
  const rows = [...groups.values()].map(
    ({ count, first }) =>
      `  ${first.tool.padEnd(8)} ${first.severity.padEnd(7)} ${String(count).padStart(3)}  ${first.rule.padEnd(36)} e.g. ${first.where}`,
  )
  const all = findings.map(
    (finding) =>
      `  ${finding.tool} ${finding.severity} ${finding.rule} ${finding.where}: ${finding.message}`,
  )
  return [
    '  tool     level   count rule                                 first location',
    ...rows,
    '',
    'Every finding:',
    ...all,
  ].join('\n')
}

/**
 * The document in each shape the settings give it: as the contract shows the API, and
 * with authentication and rate limits on (the bearer scheme, scopes, 401/403/503 and
 * 429 answers).
 */
const DOCUMENTS = [
  { file: DOCUMENT, env: {} },
  {
    file: 'test-output/openapi-authenticated.json',
    env: {
      AUTH_JWKS_URL: 'https://login.example.com/.well-known/jwks.json',
      AUTH_ISSUER: 'https://login.example.com/',
      AUTH_AUDIENCE: 'todo-member-api',
      RATE_LIMIT: '600/minute',
    },
  },
]

/**
 * Findings that are the tool's mistake, each with the reason. OpenAPI 3.1 lets a
 * security requirement of an http scheme list the roles (here: the token's scopes) an
 * operation needs (4.8.30.1); Spectral checks scopes against OAuth flows only, whatever
 * the scheme (stoplightio/spectral#2566).
 */
function isToolMistake(finding: Finding): boolean {
  return (
    finding.tool === 'spectral' &&
    finding.rule === 'oas3-operation-security-defined' &&
    /^"(todos|members):(read|write)" must be listed among scopes\.$/.test(finding.message) &&
    finding.where.includes('/security/0/bearer/')
  )
}

const started = performance.now()
try {
  let failed = 0
  const notes: Finding[] = []
  for (const { file, env } of DOCUMENTS) {
    await writeOpenApi(file, env)
    const findings = (await Promise.all([spectral(file), redocly(file)]))
      .flat()
      .filter((finding) => !isToolMistake(finding))
    const failing = findings.filter((f) => f.severity === 'error' || f.severity === 'warning')
    notes.push(...findings.filter((f) => !failing.includes(f)))
    if (failing.length > 0) {
      failed += 1
      const errors = failing.filter((f) => f.severity === 'error').length
      console.error(
        `lint:openapi FAILED: ${errors} errors, ${failing.length - errors} warnings in ${file} ` +
          `(Spectral spectral:oas, Redocly recommended; both must be clean).\n${summary(findings)}`,
      )
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  if (failed > 0) {
    process.exitCode = 1
  } else {
    const noted = notes.length > 0 ? `, ${notes.length} info/hint notes` : ''
    console.log(
      `lint:openapi: OpenAPI documents clean, as the contract shows it and with authentication and rate limits (Spectral, Redocly${noted}) in ${seconds} s`,
    )
    if (verbose && notes.length > 0) console.log(summary(notes))
  }
} catch (error) {
  console.error('lint:openapi could not run:', error instanceof Error ? error.message : error)
  process.exitCode = 2
}
