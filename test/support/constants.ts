/** Shared by the jest global setup and the test helpers; imports nothing, so the setup never loads the ORM. */
export const TEMPLATE_DB = 'relay_test_template';

/** A fixed, test-only AES key and JWT secret. */
export const TEST_SECRETS = {
  RELAY_ENCRYPTION_KEYS: `test1:${Buffer.alloc(32, 7).toString('base64')}`,
  RELAY_JWT_SECRET: 'test-jwt-secret-that-is-long-enough-0123456789',
};
