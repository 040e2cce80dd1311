import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'

/** An error of @fastify/send (http-errors): its status, and the headers it asks for. */
interface SendError {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
}

function isSendError(error: unknown): error is SendError {
  // An ApiProblem has a status too: a stage's answer (a Host, a request target), not send's.
  if (error instanceof ApiProblem) return false
  return typeof (error as Partial<SendError>).status === 'number'
}

/** @fastify/static's own refusal of a path that leaves its folder (`/..`, `%2e%2e`). */
function isForbiddenPath(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'FST_STATIC_FORBIDDEN_PATH'
}

/**
 * The refusals of @fastify/static and of @fastify/send beneath it, which serve the docs page's and the web app's files.
 * Each of its statuses has one cause in send, named here; anything else it raises (a
 * file system failure) is the service's 500.
 */
export function staticFileProblem(error: unknown): ApiProblem | undefined {
  if (isForbiddenPath(error)) return new ApiProblem(PROBLEMS.resourceNotFound)
  if (!isSendError(error)) return undefined
  switch (error.status) {
    // 400: a path send cannot decode; 403: one that leaves the folder (`..`), a dot
    // file or a folder; 404: no such file. Each is a path that names nothing served.
    case 400:
    case 403:
    case 404:
      return new ApiProblem(PROBLEMS.resourceNotFound)
    // If-Match or If-Unmodified-Since did not hold for the file.
    case 412:
      return new ApiProblem(PROBLEMS.preconditionFailed)
    // A Range no byte of the file satisfies: Content-Range gives the file's length.
    case 416: {
      const contentRange = error.headers?.['Content-Range']
      return new ApiProblem(PROBLEMS.rangeNotSatisfiable, {
        target: 'Range',
        headers: contentRange ? { 'content-range': contentRange } : {},
      })
    }
    default:
      return undefined
  }
}
