import { ConfigurationError } from '../../lib'

/** The message of the ConfigurationError that `make` throws; fails the spec when it throws nothing or something else. */
export function configError(make: () => unknown): string {
  try {
    make()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError)
    return (error as Error).message
  }
  throw new Error('expected a ConfigurationError')
}
