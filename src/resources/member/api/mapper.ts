import type { Static } from 'typebox'
import type { Member } from '../domain/model.js'
import type { MemberResource } from './schemas.js'

export function toMemberResource(member: Member): Static<typeof MemberResource> {
  return {
    memberId: member.memberId,
    firstName: member.firstName,
    lastName: member.lastName,
    genderCode: member.genderCode,
    dateOfBirth: member.dateOfBirth,
    emailAddress: member.emailAddress,
    telephoneNumber: member.telephoneNumber,
    zipCode: member.zipCode,
    address: member.address,
    credential: {
      signId: member.credential.signId,
      passwordLastChangedAt: member.credential.passwordLastChangedAt,
      lastModifiedAt: member.credential.lastModifiedAt,
    },
    createdAt: member.createdAt,
    lastModifiedAt: member.lastModifiedAt,
  }
}
