import type { Timestamp } from '../../../infra/db/schema.js'

export interface MemberTable {
  member_id: string
  first_name: string
  last_name: string
  gender_code: string
  /** yyyy-MM-dd on both databases. */
  date_of_birth: string
  email_address: string
  telephone_number: string | null
  zip_code: string | null
  address: string | null
  created_at: Timestamp
  last_modified_at: Timestamp
  version: number
}

export interface MemberCredentialTable {
  member_id: string
  sign_id: string
  password_hash: string
  password_last_changed_at: Timestamp
  last_modified_at: Timestamp
}

declare module '../../../infra/db/schema.js' {
  interface DatabaseSchema {
    member: MemberTable
    member_credential: MemberCredentialTable
  }
}
