/** One Ajv error as Fastify reports it on a failed schema validation. */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * A one-line, client-facing sentence for a failed validation: which part of the request, which
 * field, and what it must be (`Invalid body: text must be a string`). Never echoes the input.
 */
export function describeValidation(
  context: string | undefined,
  issues: readonly ValidationIssue[],
): string {
  const part = context ?? 'request';
  const issue = issues[0];
  if (issue === undefined) return `Invalid ${part}`;
  const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const subject = field === '' ? (part === 'body' ? 'the body' : part) : field;
  return `Invalid ${part}: ${subject} ${requirement(issue, field)}`;
}

function requirement(issue: ValidationIssue, field: string): string {
  const { params } = issue;
  switch (issue.keyword) {
    case 'required':
      return `needs "${String(params['missingProperty'])}"`;
    case 'type':
      return `must be ${article(String(params['type']))}`;
    case 'minLength':
      return params['limit'] === 1
        ? 'must not be empty'
        : `must be at least ${String(params['limit'])} characters`;
    case 'maxLength':
      return `must be at most ${String(params['limit'])} characters`;
    case 'pattern':
      if (field === 'sessionId') {
        return 'must be 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit';
      }
      if (field === 'limit') return 'must be a whole number from 1 to 1000';
      return field === 'text' ? 'must not be blank' : 'has an invalid format';
    case 'enum':
      return `must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'minimum':
      return `must be at least ${String(params['limit'])}`;
    case 'maximum':
      return `must be at most ${String(params['limit'])}`;
    case 'additionalProperties':
      // The field's name is the client's input: not echoed.
      return 'has a field it does not accept';
    default:
      return issue.message ?? 'is not valid';
  }
}

function article(type: string): string {
  if (type.includes(',')) return `one of ${type}`;
  if (type === 'object') return 'a JSON object';
  if (type === 'array') return 'an array';
  if (type === 'integer') return 'an integer';
  return `a ${type}`;
}
