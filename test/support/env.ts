/**
 * The environment a test app starts from: nothing of the developer's shell leaks in except the
 * database and Redis the run was pointed at.
 */
export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    APP_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    ...overrides,
  };
}
