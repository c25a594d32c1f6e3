// Preloaded (`node --require`) into a server under `critical-path.ts`: times each message's way
// through the server from Node's own HTTP diagnostics channels and the `fs` calls it makes, with
// no change to the server's code. One message at a time: the message in progress is the one the
// last `POST …/messages` began. On SIGUSR2 it prints what it measured since the last SIGUSR2 as one
// `CRITICAL_PATH#<n> <json>` line on stderr (n counts the reports) and starts again.
//
// Also the process's garbage collection over the same window (per message: scavenges, full
// collections, their pauses, and how much the old generation grew at scavenges: what they
// promoted), and, with `count-promises.cjs` preloaded before it, the promises each message made
// before its upstream request and from it to the answer.
'use strict';
const channels = require('node:diagnostics_channel');
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const v8 = require('node:v8');

let current;
let done = [];
let reports = 0;
/** The promises this process made so far, when `count-promises.cjs` counts them. */
const promisesMade = globalThis.__keelPromisesMade;

/** The collections since the last report, each with the heap before and after it (`v8.GCProfiler`). */
let collections = new v8.GCProfiler();
collections.start();
const oldSpaceOf = (heap) =>
  heap.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;

/** The collections of the window, per message: counts, pauses, and what scavenges promoted. */
function collected(messages) {
  const { statistics } = collections.stop();
  collections = new v8.GCProfiler();
  collections.start();
  const gc = { scavenges: 0, scavengeMs: 0, full: 0, fullMs: 0, promotedBytes: 0 };
  for (const { gcType, cost, beforeGC, afterGC } of statistics) {
    if (gcType === 'Scavenge') {
      gc.scavenges += 1;
      gc.scavengeMs += cost / 1000;
      // What a scavenge adds to the old generation is what it promoted. A full collection both
      // promotes and frees there, so its promotion cannot be read this way: it is not counted.
      gc.promotedBytes += Math.max(0, oldSpaceOf(afterGC) - oldSpaceOf(beforeGC));
    } else if (gcType === 'MarkSweepCompact') {
      gc.full += 1;
      gc.fullMs += cost / 1000;
    } else if (gcType === 'IncrementalMarking') {
      // A full collection's marking, paused in steps: its pauses count with it.
      gc.fullMs += cost / 1000;
    }
  }
  if (messages > 0) for (const key of Object.keys(gc)) gc[key] /= messages;
  return gc;
}

channels.subscribe('http.server.request.start', ({ request, response }) => {
  if (request.method !== 'POST' || !request.url.endsWith('/messages')) return;
  const row = {
    arrived: performance.now(),
    fs: { pre: [0, 0], post: [0, 0], after: [0, 0] },
    fsync: 0,
    promises: promisesMade?.(),
  };
  current = row;
  response.once('finish', () => {
    row.answered = performance.now();
    if (row.promisesSent !== undefined) row.promisesAfter = promisesMade() - row.promisesSent;
    if (row.sent !== undefined && row.received !== undefined) done.push(row);
  });
});

channels.subscribe('http.client.request.start', ({ request }) => {
  const row = current;
  if (row === undefined || row.sent !== undefined) return;
  row.sent = performance.now();
  if (row.promises !== undefined) {
    row.promisesSent = promisesMade();
    row.promisesBefore = row.promisesSent - row.promises;
  }
  request.once('response', (response) => {
    response.once('end', () => {
      row.received = performance.now();
    });
  });
});

/** Before the upstream request, between its answer and the client's, or after the client's. */
function phaseOf(row) {
  if (row.sent === undefined) return 'pre';
  return row.answered === undefined ? 'post' : 'after';
}

const SYNC = [
  'openSync',
  'closeSync',
  'readSync',
  'writeSync',
  'fstatSync',
  'lstatSync',
  'ftruncateSync',
  'futimesSync',
  'linkSync',
  'renameSync',
  'unlinkSync',
];
for (const name of SYNC) {
  const original = fs[name];
  fs[name] = function timed(...args) {
    const row = current;
    const started = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      if (row !== undefined) {
        const slot = row.fs[phaseOf(row)];
        slot[0] += 1;
        slot[1] += performance.now() - started;
      }
    }
  };
}
const fsync = fs.fsync;
fs.fsync = function timedFsync(fd, callback) {
  const row = current;
  const started = performance.now();
  return fsync.call(this, fd, (...results) => {
    if (row !== undefined && row.answered === undefined) row.fsync += performance.now() - started;
    callback(...results);
  });
};

process.on('SIGUSR2', () => {
  const rows = done;
  done = [];
  const median = (of) => {
    const values = rows.map(of).sort((a, b) => a - b);
    return values[values.length >> 1] ?? 0;
  };
  const report = {
    messages: rows.length,
    total: median((row) => row.answered - row.arrived),
    beforeUpstream: median((row) => row.sent - row.arrived),
    upstream: median((row) => row.received - row.sent),
    afterUpstream: median((row) => row.answered - row.received),
    fsync: median((row) => row.fsync),
    fs: Object.fromEntries(
      ['pre', 'post', 'after'].map((phase) => [
        phase,
        { calls: median((row) => row.fs[phase][0]), ms: median((row) => row.fs[phase][1]) },
      ]),
    ),
    gc: collected(rows.length),
    ...(promisesMade === undefined
      ? {}
      : {
          promises: {
            pre: median((row) => row.promisesBefore),
            post: median((row) => row.promisesAfter),
          },
        }),
  };
  reports += 1;
  process.stderr.write(`CRITICAL_PATH#${reports} ${JSON.stringify(report)}\n`);
});
