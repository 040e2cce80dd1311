/**
 * English messages: error codes, then validation constraints. `{0}` is the first
 * argument (an id, or the field path of a validation detail); `{min}`, `{max}`,
 * `{value}`, `{regexp}` and `{codeListId}` are a constraint's attributes.
 */
export const en = {
  'e.ex.fw.5001': 'Resource not found.',
  'e.ex.fw.6001': 'Request method not supported.',
  'e.ex.fw.6002': 'Specified representation format not supported.',
  'e.ex.fw.6003': 'Specified media type in the request body not supported.',
  'e.ex.fw.6004': 'Authentication required: a valid bearer token.',
  'e.ex.fw.6005': 'The bearer token lacks the scope this operation needs. scope : {0}',
  'e.ex.fw.6006': 'Too many requests. Retry after {0} seconds.',
  'e.ex.fw.7001': 'Validation error occurred on item in the request body.',
  'e.ex.fw.7002': 'Validation error occurred on item in the request parameters.',
  'e.ex.fw.7003': 'Request body format error occurred.',
  'e.ex.fw.7004': 'Unknown field exists in JSON.',
  'e.ex.fw.7005': 'Type mismatch error occurred in JSON field.',
  'e.ex.fw.7006': 'Type mismatch error occurred in request parameter or header or path variable.',
  'e.ex.fw.7007': 'Request body too large.',
  'e.ex.fw.7008': 'Idempotency key was used for a different request.',
  'e.ex.fw.8001': 'Business error occurred.',
  'e.ex.fw.8002': 'Conflict with other processing occurred.',
  'e.ex.fw.8003': 'A request with the same idempotency key is being processed.',
  'e.ex.fw.9001': 'System error occurred.',
  'e.ex.fw.9002': 'System error occurred.',
  'e.ex.fw.9003': 'System error occurred.',
  'e.ex.fw.9004': 'Authentication is unavailable: the identity provider does not answer.',
  'e.ex.fw.9005': 'The service is busy. Retry later.',
  'e.ex.fw.9999': 'Unhandled system error occurred.',

  NotNull: '{0} may not be null.',
  Null: '{0} must be null.',
  NotEmpty: '{0} may not be empty.',
  NotBlank: '{0} may not be empty.',
  Size: '{0} size must be between {min} and {max}.',
  Length: '{0} length must be between {min} and {max}.',
  Past: '{0} must be in the past.',
  Future: '{0} must be in the future.',
  Email: '{0} not a well-formed email address.',
  Pattern: '{0} must match {regexp}.',
  Min: '{0} must be greater than or equal to {value}.',
  Max: '{0} must be less than or equal to {value}.',
  Range: '{0} must be between {min} and {max}.',
  ExistInCodeList: '{0} must exist in code list of {codeListId}.',
  PathMatch: '{0} must match the member id of the request path.',
  UniqueElements: '{0} may name each property only once.',
  ResultLimit:
    '{0} returns at most {max} members; this search matches more: narrow the name or ask for pages.',
} as const

export type MessageKey = keyof typeof en
export type Catalogue = Readonly<Record<MessageKey, string>>
