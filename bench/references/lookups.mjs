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

/**
 * The Todo and Member lookups by id on one database: better-sqlite3 when `SQLITE_FILE`
 * is set (the release the service loads for this Node.js, src/infra/db/sqlite/sqlite-driver.ts),
 * else pg on `DATABASE_URL`, each statement named (prepared once per connection); `rows`
 * reads the same rows unmapped (for what a row holds beyond its answer: a version).
 */
export async function lookupsFromEnvironment() {
  const file = process.env.SQLITE_FILE
  if (file) {
    const { default: Database } =
      Number(process.versions.napi) >= 10
        ? await import('better-sqlite3-napi')
        : await import('better-sqlite3')
    const database = new Database(file, { readonly: true })
    const todoById = database.prepare('select * from todo where todo_id = ?')
    const memberById = database.prepare(memberByIdSql('?'))
    return {
      todos: async (id) => todoResource(todoById.get(id)),
      members: async (id) => memberResource(memberById.get(id)),
      rows: { todo: async (id) => todoById.get(id), member: async (id) => memberById.get(id) },
    }
  }
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DB_POOL_MAX ?? 10),
  })
  const first = async (name, text, id) => (await pool.query({ name, text, values: [id] })).rows[0]
  const rows = {
    todo: (id) => first('todo_by_id', 'select * from todo where todo_id = $1', id),
    member: (id) => first('member_by_id', memberByIdSql('$1'), id),
  }
  return {
    todos: async (id) => todoResource(await rows.todo(id)),
    members: async (id) => memberResource(await rows.member(id)),
    rows,
  }
}
