// What the bare references share: the service's member columns (as
// src/infra/member/member-repository.ts reads them) and the JSON of each resource.

/** The member and its credential by id; `$1` or `?` as the driver wants. */
export const memberByIdSql = (placeholder) =>
  'select m.member_id, m.first_name, m.last_name, m.gender_code, m.date_of_birth, ' +
  'm.email_address, m.telephone_number, m.zip_code, m.address, m.created_at, ' +
  'm.last_modified_at, m.version, c.sign_id, c.password_hash, ' +
  'c.password_last_changed_at, c.last_modified_at as credential_last_modified_at ' +
  `from member m inner join member_credential c on c.member_id = m.member_id where m.member_id = ${placeholder}`

/** A time stamp as the service answers it: ISO text (pg reads timestamptz as a Date). */
const iso = (value) => (value instanceof Date ? value.toISOString() : value)

export const todoResource = (row) => ({
  todoId: row.todo_id,
  todoTitle: row.todo_title,
  finished: row.finished === true || row.finished === 1,
  createdAt: iso(row.created_at),
})

export const memberResource = (row) => ({
  memberId: row.member_id,
  firstName: row.first_name,
  lastName: row.last_name,
  genderCode: row.gender_code,
  dateOfBirth: row.date_of_birth,
  emailAddress: row.email_address,
  telephoneNumber: row.telephone_number,
  zipCode: row.zip_code,
  address: row.address,
  credential: {
    signId: row.sign_id,
    passwordLastChangedAt: iso(row.password_last_changed_at),
    lastModifiedAt: iso(row.credential_last_modified_at),
  },
  createdAt: iso(row.created_at),
  lastModifiedAt: iso(row.last_modified_at),
})
