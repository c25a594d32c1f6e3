import { expect } from 'vitest';

/** The contract's error: exactly `{ error: { code, message } }`, JSON, no stack or internals. */
export function expectApiError(status: number, text: string, expected: number, code: string): void {
  expect({ status, text }).toMatchObject({ status: expected });
  const body = JSON.parse(text) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  expect(body.error['code']).toBe(code);
  expect(String(body.error['message']).length).toBeGreaterThan(0);
  expect(text).not.toMatch(/\n\s+at |node_modules|FST_|statusCode|Error:/);
}
