// The calls views are addressed by the hash like the sessions: each route reads back as itself.
import { describe, expect, it } from 'vitest';
import { hrefOf, parseRoute, type Route } from './route';

describe('parseRoute and hrefOf', () => {
  it('round-trips every view, a call by its id', () => {
    const routes: Route[] = [
      { view: 'sessions' },
      { view: 'session', sessionId: 'openai-1234' },
      { view: 'calls' },
      { view: 'call', callId: 'openai-0b5c2f3e-7c1d-4c58-9d0e-2a1f3b4c5d6e' },
      { view: 'providers' },
      { view: 'keys' },
    ];
    for (const route of routes) expect(parseRoute(hrefOf(route))).toEqual(route);
  });

  it('falls back to the sessions for an id that is not one', () => {
    expect(parseRoute('#/calls/..%2Fx')).toEqual({ view: 'sessions' });
    expect(parseRoute('#/calls/')).toEqual({ view: 'sessions' });
  });
});
