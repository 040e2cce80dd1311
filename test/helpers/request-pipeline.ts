import { expect } from 'vitest'
import { JSON_TYPE } from './api-errors.js'
import { SQLITE_TARGET } from './databases.js'
import type { HttpResponse } from './http.js'
import { TODOS } from './raw-todos.js'
import { startServer, type TestServer } from './server.js'

/**
 * Helpers of the suites that observe the request pipeline shared by every endpoint on
 * the Todo resource (test/http/request-pipeline.test.ts, test/errors/pipeline-errors.test.ts).
 */

/** Status, the exact JSON Content-Type and the exact JSON body. */
export function expectJson(response: HttpResponse, status: number, body: unknown): void {
  expect(response.status).toBe(status)
  expect(response.headers['content-type']).toBe(JSON_TYPE)
  expect(response.body).toEqual(body)
}

/** POST a raw JSON text (sent byte for byte) to the Todo collection. */
export function postJsonText(
  server: TestServer,
  text: string,
  headers: Record<string, string> = {},
) {
  return server.request('POST', TODOS, {
    headers: { 'content-type': 'application/json', ...headers },
    body: text,
  })
}

export async function createTodo(
  server: TestServer,
  todoTitle = 'Pipeline',
): Promise<HttpResponse> {
  const response = await server.request('POST', TODOS, { body: { todoTitle } })
  expect(response.status).toBe(201)
  return response
}

/** The request log is written when the response is sent; wait briefly for the line. */
export async function findLog(
  server: TestServer,
  matches: (line: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown> | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const line = server.logs.find(matches)
    if (line) return line
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return undefined
}

/** A server with its own SQLite database and settings, closed after `work`. */
export async function withServer(
  settings: Record<string, string>,
  work: (server: TestServer) => Promise<void>,
): Promise<void> {
  const database = await SQLITE_TARGET.create()
  const server = await startServer(database.config, settings)
  try {
    await work(server)
  } finally {
    await server.close()
    await database.drop()
  }
}
