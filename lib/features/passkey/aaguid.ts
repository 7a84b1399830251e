/**
 * The authenticator's model from its AAGUID, for the few password managers and platforms whose
 * AAGUIDs are well known; null for any other (the all-zero AAGUID says nothing). Apps wanting every
 * model can look the `aaguid` of a listed passkey up in the FIDO Metadata Service themselves.
 */
const MODELS: ReadonlyMap<string, string> = new Map([
  ['fbfc3007-154e-4ecc-8c0b-6e020557d7bd', 'iCloud Keychain'],
  ['ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', 'Google Password Manager'],
  ['adce0002-35bc-c60a-648b-0b25f1f05503', 'Chrome on Mac'],
  ['08987058-cadc-4b81-b6e1-30de50dcbe96', 'Windows Hello'],
  ['9ddd1817-af5a-4672-a2b9-3e3dd95000a9', 'Windows Hello'],
  ['6028b017-b1d4-4c02-b4b3-afcdafc96bb2', 'Windows Hello'],
  ['bada5566-a7aa-401f-bd96-45619a55120d', '1Password'],
  ['d548826e-79b4-db40-a3d8-11116f7e8349', 'Bitwarden'],
])

export function modelOf(aaguid: string): string | null {
  return MODELS.get(aaguid.toLowerCase()) ?? null
}
