import { expect } from 'vitest'
import type { ApiErrorBody } from '../../src/api/errors/api-error.js'
import type { HttpResponse } from './http.js'

/** The contract's Content-Type, byte for byte. */
export const JSON_TYPE = 'application/json;charset=UTF-8'

/** Status, exact ApiError body and exact Content-Type of an error answer. */
export function expectApiError(response: HttpResponse, status: number, body: ApiErrorBody): void {
  expect({ status: response.status, body: response.body }).toEqual({ status, body })
  expect(response.headers['content-type']).toBe(JSON_TYPE)
}

export const PARAMETER_TYPE_MISMATCH = {
  code: 'e.ex.fw.7006',
  message: 'Type mismatch error occurred in request parameter or header or path variable.',
} as const

export const BODY_TYPE_MISMATCH = {
  code: 'e.ex.fw.7005',
  message: 'Type mismatch error occurred in JSON field.',
} as const

export const PARAMETER_VALIDATION = {
  code: 'e.ex.fw.7002',
  message: 'Validation error occurred on item in the request parameters.',
} as const

export const SYSTEM_ERROR = { code: 'e.ex.fw.9001', message: 'System error occurred.' } as const

// ---- the catalogue's answers, as the suites expect them -------------------------------

export const NOT_FOUND = { code: 'e.ex.fw.5001', message: 'Resource not found.' } as const
export const METHOD_NOT_SUPPORTED = {
  code: 'e.ex.fw.6001',
  message: 'Request method not supported.',
} as const
export const UNSUPPORTED_MEDIA_TYPE = {
  code: 'e.ex.fw.6003',
  message: 'Specified media type in the request body not supported.',
} as const
export const MALFORMED_BODY = {
  code: 'e.ex.fw.7003',
  message: 'Request body format error occurred.',
} as const
export const BODY_TOO_LARGE = { code: 'e.ex.fw.7007', message: 'Request body too large.' } as const
export const CONFLICT = {
  code: 'e.ex.fw.8002',
  message: 'Conflict with other processing occurred.',
} as const

export const memberNotFound = (memberId: string): ApiErrorBody => ({
  code: 'e.ex.mm.5001',
  message: `Specified member not found. member id : ${memberId}`,
})
export const signIdInUse = (signId: string): ApiErrorBody => ({
  code: 'e.ex.mm.8001',
  message: `Cannot use specified sign id. sign id : ${signId}`,
})
export const todoNotFound = (todoId: string): ApiErrorBody => ({
  code: 'e.ex.td.5001',
  message: `Specified todo not found. todo id : ${todoId}`,
})

// ---- validation answers and their details ---------------------------------------------

/** One violation of a validation answer's details. */
export const detail = (code: string, target: string, message: string): ApiErrorBody => ({
  code,
  message,
  target,
})
export const notNull = (target: string) => detail('NotNull', target, `${target} may not be null.`)
export const notEmpty = (target: string) =>
  detail('NotEmpty', target, `${target} may not be empty.`)
export const mustBeNull = (target: string) => detail('Null', target, `${target} must be null.`)
export const size = (target: string, min: number, max: number) =>
  detail('Size', target, `${target} size must be between ${min} and ${max}.`)
export const email = (target: string) =>
  detail('Email', target, `${target} not a well-formed email address.`)
export const past = (target: string) => detail('Past', target, `${target} must be in the past.`)
export const inCodeList = (target: string, list: string) =>
  detail('ExistInCodeList', target, `${target} must exist in code list of ${list}.`)
export const pathMatch = () =>
  detail('PathMatch', 'memberId', 'memberId must match the member id of the request path.')
export const min = (target: string, value: number) =>
  detail('Min', target, `${target} must be greater than or equal to ${value}.`)
export const max = (target: string, value: number) =>
  detail('Max', target, `${target} must be less than or equal to ${value}.`)

export const bodyValidation = (...details: ApiErrorBody[]): ApiErrorBody => ({
  code: 'e.ex.fw.7001',
  message: 'Validation error occurred on item in the request body.',
  details,
})
export const parameterValidation = (...details: ApiErrorBody[]): ApiErrorBody => ({
  code: 'e.ex.fw.7002',
  message: 'Validation error occurred on item in the request parameters.',
  ...(details.length > 0 && { details }),
})
export const unknownField = (target: string): ApiErrorBody => ({
  code: 'e.ex.fw.7004',
  message: 'Unknown field exists in JSON.',
  target,
})
export const bodyTypeMismatch = (target: string): ApiErrorBody => ({
  code: 'e.ex.fw.7005',
  message: 'Type mismatch error occurred in JSON field.',
  target,
})
export const parameterTypeMismatch = (target: string): ApiErrorBody => ({
  code: 'e.ex.fw.7006',
  message: 'Type mismatch error occurred in request parameter or header or path variable.',
  target,
})

/** A bodiless answer: no text and no Content-Type. */
export function expectEmpty(response: HttpResponse): void {
  expect(response.text).toBe('')
  expect(response.headers['content-type']).toBeUndefined()
}
