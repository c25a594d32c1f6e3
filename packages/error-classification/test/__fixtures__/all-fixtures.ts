import { ANTHROPIC_FIXTURES } from './anthropic-errors';
import { CLOUD_LOG_FIXTURES } from './cloud-log-errors';
import type { ErrorFixture } from './error-fixture';
import { GATEWAY_FIXTURES } from './gateway-errors';
import { GOOGLE_BEDROCK_FIXTURES } from './google-bedrock-errors';
import { NODE_LOG_FIXTURES } from './node-log-errors';
import { OPENAI_FIXTURES } from './openai-errors';
import { PROXY_HTML_FIXTURES } from './proxy-html-errors';
import { STORAGE_FIXTURES } from './storage-errors';
import { TRANSPORT_FIXTURES } from './transport-errors';

export const ALL_FIXTURES: readonly ErrorFixture[] = [
  ...ANTHROPIC_FIXTURES,
  ...OPENAI_FIXTURES,
  ...GOOGLE_BEDROCK_FIXTURES,
  ...GATEWAY_FIXTURES,
  ...TRANSPORT_FIXTURES,
  ...NODE_LOG_FIXTURES,
  ...PROXY_HTML_FIXTURES,
  ...CLOUD_LOG_FIXTURES,
  ...STORAGE_FIXTURES,
];
