// Runs in a child `node` inside a temporary consumer project that holds exactly one of the two
// SDKs. Streams one reply over KEEL_API, then asks for each of KEEL_OTHER_APIS (whose SDK is not
// installed) and reports everything as one JSON object on stdout.
import { createTransport, MissingSdkError } from '@keel/transport';

const { KEEL_MODEL, KEEL_API, KEEL_BASE_URL, KEEL_OTHER_APIS, KEEL_SDK, KEEL_OTHER_SDK } =
  process.env;
const request = { messages: [{ role: 'user', content: 'Say hello.' }] };

function transportFor(api) {
  return createTransport({
    api,
    baseUrl: KEEL_BASE_URL,
    apiKey: 'sk-single-sdk-consumer',
    model: KEEL_MODEL,
    maxRetries: 0,
  });
}

function resolved(specifier) {
  try {
    return import.meta.resolve(specifier);
  } catch {
    return null;
  }
}

const events = [];
for await (const event of transportFor(KEEL_API).stream(request)) events.push(event);

const missing = [];
for (const api of KEEL_OTHER_APIS.split(',')) {
  try {
    for await (const event of transportFor(api).stream(request)) events.push(event);
    missing.push({ api, thrown: false });
  } catch (error) {
    missing.push({
      api,
      thrown: true,
      name: error.name,
      isMissingSdkError: MissingSdkError.isInstance(error),
      packageName: error.packageName,
      message: error.message,
    });
  }
}

process.stdout.write(
  JSON.stringify({
    events,
    missing,
    resolved: {
      transport: resolved('@keel/transport'),
      sdk: resolved(KEEL_SDK),
      otherSdk: resolved(KEEL_OTHER_SDK),
    },
  }),
);
