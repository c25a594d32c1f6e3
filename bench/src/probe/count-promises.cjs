// Preloaded (`node --require`) before `critical-path-probe.cjs`: counts the promises the process
// makes, for the probe to split by part of each message. An async hook on every promise slows the
// process down: timings taken with it are not comparable with timings taken without.
'use strict';
const { createHook } = require('node:async_hooks');

let made = 0;
createHook({
  init(_id, type) {
    if (type === 'PROMISE') made += 1;
  },
}).enable();
globalThis.__keelPromisesMade = () => made;
