import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';

describe('which provider, from the shape of the nodes', () => {
  it('a key on any one node is enough: Azure’s innererror inside the body', () => {
    const error = {
      status: 400,
      error: {
        code: 'content_filter',
        message: 'filtered',
        innererror: { code: 'ResponsibleAIPolicyViolation' },
      },
    };
    expect(classifyError(error).provider).toBe('azure');
  });

  it('a body whose error is not an object is not Anthropic’s', () => {
    const notAnObject = Object.assign(() => undefined, { type: 'overloaded_error' });
    const result = classifyError({ type: 'error', error: notAnObject });
    expect(Object.keys(result)).not.toContain('provider');
  });

  it('a body with a null error is not Anthropic’s, and the checks after it still run', () => {
    const error = { type: 'error', error: null, message: 'see platform.openai.com/docs' };
    expect(classifyError(error).provider).toBe('openai');
  });
});
