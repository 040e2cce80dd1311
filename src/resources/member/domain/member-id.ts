import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const MEMBER_ID_LENGTH = 10
/** Bytes at or above this would make `byte % 62` favour some characters. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length)

/**
 * A random 10-character id from [0-9A-Za-z] (about 59 bits): unguessable, and needs no
 * coordination between instances. Uniformly drawn by rejecting biased bytes.
 */
export function newMemberId(): string {
  let id = ''
  while (id.length < MEMBER_ID_LENGTH) {
    for (const byte of randomBytes(16)) {
      if (byte < UNBIASED_LIMIT && id.length < MEMBER_ID_LENGTH)
        id += ALPHABET[byte % ALPHABET.length]
    }
  }
  return id
}
