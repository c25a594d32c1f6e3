// The settings of stateless calls are built once per route and remembered per config, at most 256
// routes of one config (a client names the models, so routes are open-ended): past that the
// oldest route is forgotten and built again when it comes back.
import { describe, expect, it } from 'vitest';
import { callSettings } from '../src/call-settings';
import { resolveSettings } from '../src/resolve-settings';

const settings = () =>
  resolveSettings({
    storage: {} as never,
    fences: (() => undefined) as never,
    router: { connect: () => undefined as never },
    providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    models: { primary: 'anthropic/primary' },
  });
const route = (index: number) => ({ primary: `anthropic/model-${index}`, fallbacks: [] });

describe('callSettings', () => {
  it('builds a route once: the same route gets the same settings, with one step', () => {
    const config = settings();
    const first = callSettings(config, route(0));
    expect(first).toMatchObject({ primary: 'anthropic/model-0', fallbacks: [], maxSteps: 1 });
    expect(callSettings(config, route(1))).not.toBe(first);
    expect(callSettings(config, route(0))).toBe(first);
  });

  it('remembers 256 routes of a config: the 257th forgets the oldest, and only it', () => {
    const config = settings();
    const oldest = callSettings(config, route(0));
    const built = [oldest];
    for (let index = 1; index < 256; index += 1) built.push(callSettings(config, route(index)));
    // 256 routes: all remembered.
    expect(callSettings(config, route(0))).toBe(oldest);
    // The 257th forgets the one built first (route 0), though it was just used: use does not
    // move a route.
    const newest = callSettings(config, route(256));
    expect(callSettings(config, route(256))).toBe(newest);
    expect(callSettings(config, route(255))).toBe(built[255]);
    expect(callSettings(config, route(0))).not.toBe(oldest);
  });
});
