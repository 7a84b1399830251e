// Every spec runs on Express 5; the route and flow specs run a second time on Express 4, with
// `express` mapped to the `express4` alias for both the specs and the package under test.
const common = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.spec.ts'],
}

module.exports = {
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/spec/support/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'express5' },
    {
      ...common,
      displayName: 'express4',
      testMatch: [
        '<rootDir>/spec/routes/**/*.spec.ts',
        '<rootDir>/spec/flows/**/*.spec.ts',
        '<rootDir>/spec/http/mount.spec.ts',
        '<rootDir>/spec/client/**/*.spec.ts',
      ],
      moduleNameMapper: { '^express$': '<rootDir>/node_modules/express4' },
    },
  ],
}
