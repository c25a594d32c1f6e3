import { describe, expect, it } from 'vitest';
import { promotedBytes } from './promoted-bytes';

/** About 2 KB (256 elements). */
const block = (index: number) => new Array<number>(256).fill(index);

describe('promotedBytes', () => {
  it('counts what each call keeps, and nothing of what it lets go', async () => {
    const kept: unknown[] = [];
    const keeping = await promotedBytes((index) => {
      kept.push(block(index));
    });
    const dropping = await promotedBytes((index) => ({ value: block(index) }));

    expect(keeping).toBeGreaterThan(1500);
    expect(dropping).toBeLessThan(200);
    expect(kept).toHaveLength(400);
  });

  // The V8 behaviour the helper exists to catch (Node 20 and 24 alike): an object literal's own
  // getter keeps its closure's scope alive through scavenges, a prototype's getter does not.
  it("counts the scope of a literal's own getter, dropped at once, and not a prototype's", async () => {
    const withOwnGetter = await promotedBytes((index) => {
      const value = block(index);
      return {
        get value() {
          return value;
        },
      };
    });
    class WithPrototypeGetter {
      readonly #value: number[];
      constructor(value: number[]) {
        this.#value = value;
      }
      get value(): number[] {
        return this.#value;
      }
    }
    const withPrototypeGetter = await promotedBytes(
      (index) => new WithPrototypeGetter(block(index)),
    );

    expect(withOwnGetter).toBeGreaterThan(1500);
    expect(withPrototypeGetter).toBeLessThan(200);
  });
});
