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
