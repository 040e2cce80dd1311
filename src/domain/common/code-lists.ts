/** Code lists referred to by name in validation rules (`ExistInCodeList`). */
export const CODE_LISTS: Readonly<Record<string, ReadonlySet<string>>> = {
  /** 0 unknown, 1 men, 2 women. */
  CL_GENDER: new Set(['0', '1', '2']),
}
