// better-sqlite3 13 under an npm alias (sqlite-driver.ts): the same API as the typed 12.
declare module 'better-sqlite3-napi' {
  import SqliteDatabase from 'better-sqlite3'
  export default SqliteDatabase
}
