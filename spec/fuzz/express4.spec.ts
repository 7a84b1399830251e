import { fuzzAnyRequest } from './any-request'
import { useService } from './run'
import { startTrustHostService, startUrlService } from './services'
import { fuzzTrustHost } from './trust-host'

// The package supports Express 4 and 5, whose routers parse paths differently (Express 5's
// path-to-regexp 8, decoding, trailing slashes): the broadest two properties run again on 4, at
// half the runs. jest's express4 project does not match spec/fuzz, so the mapping is made here.
jest.mock('express', () => jest.requireActual('express4'))

describe('fuzz on Express 4', () => {
  it('runs on Express 4', () => {
    // The same module the package under test gets for `express`, and it is version 4.
    expect(jest.requireMock('express')).toBe(jest.requireActual('express4'))
    expect(jest.requireActual<{ version: string }>('express4/package.json').version).toMatch(/^4\./)
  })

  describe('any request, with `url` set', () => fuzzAnyRequest(useService(startUrlService), 0.5))
  describe('trustHost without url', () => fuzzTrustHost(useService(startTrustHostService), 0.5))
})
