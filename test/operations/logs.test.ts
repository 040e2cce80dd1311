import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'

describe('request log on sqlite', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  it('writes exactly one JSON line per request: track, method, route template, status, duration, client', async () => {
    const created = await suite.server.request('POST', '/api/v1/todos', {
      headers: { 'x-track': 'log-test-1' },
      body: { todoTitle: 'logged' },
    })
    const todoId = (created.body as { todoId: string }).todoId
    await suite.server.request('GET', `/api/v1/todos/${todoId}`, {
      headers: { 'x-track': 'log-test-2' },
    })
    const lines = suite.server.logs.filter((line) => String(line.track).startsWith('log-test-'))
    expect(
      lines.map(({ track, method, route, status, msg, level, client }) => ({
        track,
        method,
        route,
        status,
        msg,
        level,
        client,
      })),
    ).toEqual([
      {
        track: 'log-test-1',
        method: 'POST',
        route: '/api/v1/todos',
        status: 201,
        msg: 'request completed',
        level: 30,
        client: '127.0.0.1',
      },
      {
        track: 'log-test-2',
        method: 'GET',
        route: '/api/v1/todos/:todoId',
        status: 200,
        msg: 'request completed',
        level: 30,
        client: '127.0.0.1',
      },
    ])
    for (const line of lines) expect(typeof line.durationMs).toBe('number')
  })

  it('never logs request bodies or raw URLs of requests', async () => {
    const secretTitle = 'body-text-never-logged'
    await suite.server.request('POST', '/api/v1/todos', { body: { todoTitle: secretTitle } })
    await suite.server.request('POST', '/api/v1/todos', { body: `{"todoTitle":"${secretTitle}` })
    expect(JSON.stringify(suite.server.logs)).not.toContain(secretTitle)
  })

  it('logs a server error with its cause and stack under the request track id', async () => {
    await suite.database.exec(
      "insert into todo (todo_id, todo_title, finished, created_at) values ('broken-row','x',0,'not a date')",
    )
    await suite.server.request('GET', '/api/v1/todos/broken-row', {
      headers: { 'x-track': 'log-test-500' },
    })
    const failure = suite.server.logs.find(
      (line) => line.track === 'log-test-500' && line.level === 50,
    )
    const err = failure?.err as { message?: string; stack?: string } | undefined
    expect(failure?.msg).toBe('request failed')
    expect(err?.message).toBe('Invalid time value')
    expect(err?.stack).toContain('toISOString')
  })
})

describe('log level on sqlite', () => {
  const suite = serverPerSuite(SQLITE_TARGET, { LOG_LEVEL: 'warn' })

  it('respects LOG_LEVEL: at warn, no per-request info lines', async () => {
    await suite.server.request('GET', '/api/v1/todos')
    expect(suite.server.logs.filter((line) => line.msg === 'request completed')).toEqual([])
  })
})

describe('log format', () => {
  function firstStdoutLine(env: Record<string, string>): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
        env: {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: '0',
          DATABASE_URL: `sqlite:${env.FILE}`,
          ...env,
        },
      })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8')
        if (output.includes('\n')) {
          child.kill('SIGTERM')
          resolve(output.split('\n')[0] ?? '')
        }
      })
      child.on('error', reject)
      setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error(`no log line: ${output}`))
      }, 15_000)
    })
  }

  it('is one JSON object per line by default, human-readable only when LOG_PRETTY=true', async () => {
    const database = await SQLITE_TARGET.create()
    if (database.config.kind !== 'sqlite') throw new Error('expected SQLite')
    try {
      const json = await firstStdoutLine({ FILE: database.config.file })
      expect(JSON.parse(json)).toMatchObject({
        level: 30,
        msg: expect.stringContaining('Server listening at'),
      })
      const pretty = await firstStdoutLine({ FILE: database.config.file, LOG_PRETTY: 'true' })
      expect(() => JSON.parse(pretty)).toThrow()
      expect(pretty).toContain('Server listening at')
    } finally {
      await database.drop()
    }
  }, 40_000)
})
