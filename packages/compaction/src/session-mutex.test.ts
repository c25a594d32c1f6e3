import { describe, expect, it } from 'vitest';
import { createSessionMutex } from './session-mutex';

const never = new AbortController().signal;

/** Lets every pending promise callback run. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

describe('createSessionMutex', () => {
  it('lets one holder per key in, the others in arrival order', async () => {
    const mutex = createSessionMutex();
    const order: string[] = [];
    const releaseA = await mutex.acquire('s', never);
    const b = mutex.acquire('s', never).then((release) => {
      order.push('b');
      return release;
    });
    const c = mutex.acquire('s', never).then((release) => {
      order.push('c');
      return release;
    });
    await settle();
    expect(order).toEqual([]);
    releaseA();
    const releaseB = await b;
    await settle();
    expect(order).toEqual(['b']);
    releaseB();
    (await c)();
    expect(order).toEqual(['b', 'c']);
    await settle();
    expect(mutex.isBusy('s')).toBe(false);
  });

  it('does not make different keys wait for each other', async () => {
    const mutex = createSessionMutex();
    await mutex.acquire('s-1', never);
    const other = await mutex.acquire('s-2', never);
    expect(typeof other).toBe('function');
    expect(mutex.isBusy('s-1')).toBe(true);
  });

  it('wakes a waiter on abort with the reason, without holding up the ones behind it', async () => {
    const mutex = createSessionMutex();
    const releaseA = await mutex.acquire('s', never);
    const controller = new AbortController();
    const waiting = mutex.acquire('s', controller.signal);
    let thirdIn = false;
    const third = mutex.acquire('s', never).then((release) => {
      thirdIn = true;
      return release;
    });
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    await settle();
    expect(thirdIn).toBe(false);
    releaseA();
    (await third)();
    expect(thirdIn).toBe(true);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const mutex = createSessionMutex();
    await expect(mutex.acquire('s', AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
    expect(mutex.isBusy('s')).toBe(false);
  });
});
