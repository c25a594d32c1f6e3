import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

let gateway: GatewayProcess;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway.stop();
  await removeDir(gateway.dir);
});

describe('the gateway out of the box: no config, no keys, the embedded demo model', () => {
  it('answers, really calling the demo tools', async () => {
    const time = await sendMessage(gateway, 'demo-1', { text: 'What time is it?' });
    expect(time.status).toBe(200);
    expect(time.body).toMatchObject({
      outcome: 'reply',
      model: 'demo/keel-demo',
      provider: 'demo',
    });
    const stamp = /The current time is (\S+)\./.exec(String(time.body['text']))?.[1];
    expect(Number.isNaN(Date.parse(String(stamp)))).toBe(false);
    const dice = await sendMessage(gateway, 'demo-1', { text: 'Roll a d20' });
    const rolled = Number(/got (\d+)\./.exec(String(dice.body['text']))?.[1]);
    expect(rolled).toBeGreaterThanOrEqual(1);
    expect(rolled).toBeLessThanOrEqual(20);
  });

  it('streams deltas and one outcome event with Accept: text/event-stream', async () => {
    const response = await gateway.fetch('/v1/sessions/demo-2/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'hello there' }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = text
      .trim()
      .split('\n\n')
      .map((block) => ({
        event: /^event: (.*)$/m.exec(block)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null'),
      }));
    const deltas = events
      .filter((event) => event.event === 'delta')
      .map((event) => event.data.text)
      .join('');
    const outcomes = events.filter((event) => event.event === 'outcome');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.data).toMatchObject({ outcome: 'reply' });
    expect(deltas).toBe(outcomes[0]?.data.text);
  });
});
