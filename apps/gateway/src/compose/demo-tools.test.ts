import { describe, expect, it } from 'vitest';
import { createDemoToolRunner } from './demo-tools';

const context = { sessionId: 's', turnId: 't', signal: new AbortController().signal };

describe('the demo tools', () => {
  it('offers only the tools configured', () => {
    expect(createDemoToolRunner(['roll_dice']).definitions.map((tool) => tool.name)).toEqual([
      'roll_dice',
    ]);
  });

  it('current_time answers with the time now', async () => {
    const before = Date.now();
    const { content } = await createDemoToolRunner(['current_time']).run(
      { id: '1', name: 'current_time', input: {} },
      context,
    );
    expect(Date.parse(content)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('roll_dice rolls within its sides, every face in time, and refuses a bad die', async () => {
    const runner = createDemoToolRunner(['roll_dice']);
    const faces = new Set<string>();
    for (let roll = 0; roll < 400; roll += 1) {
      faces.add(
        (await runner.run({ id: String(roll), name: 'roll_dice', input: { sides: 4 } }, context))
          .content,
      );
    }
    expect([...faces].sort()).toEqual(['1', '2', '3', '4']);
    expect(
      await runner.run({ id: 'x', name: 'roll_dice', input: { sides: 1 } }, context),
    ).toMatchObject({ isError: true });
  });
});
