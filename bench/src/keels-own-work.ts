/**
 * The part of `BENCHMARKS.md`'s closing section on what Keel spends above the floor with the fixed
 * parts, message by message (issue 20): written by hand from the measurements it names, as
 * `where-the-time-goes.ts`, which ends with it.
 */
export const KEELS_OWN_WORK = `**A message's way through the server (2026-12-05).** \`src/critical-path.ts\` times each message
in the gateway and in the floor with the fixed parts, side by side, one at a time (1 500 each over
64 sessions of 20+ turns; Node's HTTP diagnostics channels and the \`fs\` calls, no change to either
server). Two runs, medians:

| | arrival → upstream request | upstream call | its end → answer | whole | fs calls before / after the upstream call | fsync waited |
| --- | --- | --- | --- | --- | --- | --- |
| Keel gateway | 527–570 µs | 357–363 µs | 574–593 µs | 1 506–1 555 µs | 6 (32 µs) / 5 (27 µs) | 257–262 µs |
| floor with the fixed parts | 321–345 µs | 329–335 µs | 366–368 µs | 1 114–1 138 µs | 1 (11 µs) / 1 (9 µs) | 231–234 µs |

Keel adds about 400 µs to a message's way (its 3 file-system calls after the answer, the fence's
last check, are not on it). Marks put for one run into the built packages (not kept) split it:
before the upstream call, Fastify reaches the route about 30 µs later than the floor's (the
gateway's hooks), the session queue takes 25 µs to the turn, the fence's acquire 90–110 µs (its
queue 14, the kept lease 35–40, the transcript's state 45), the turn's preparation 30 µs, the
message's append 56–70 µs and the request's building 45 µs (the SDK then takes as long as the
floor's to reach the socket); after the upstream call, the stream's end 33–44 µs, the fence's
reacquire 41–48 µs, the reply's append 85–150 µs around its fsync, the turn's held events 32–47
µs, the transcript cache 15 µs, \`turn-end\` 27 µs; the JSON answer costs what the floor's does.
The gateway's observers of a message's events, timed in place: the event log 28 µs, metrics 23 µs
(\`turn-end\`: six counter and histogram updates), the tracer 10 µs with no SDK registered, the log
2 µs. So the session fence holds about 300 of the 400 µs, and of those its file-system calls take
60 µs. Its layers of \`async\` calls were the suspect for the rest, and measurement clears them
(2026-12-05, later): the gateway makes 228 promises before the upstream request and 260 from it to
the answer against the floor's 43 and 129 (\`KEEL_COUNT_PROMISES=1\`), yet a build with twelve more
nested \`async\` frames around every storage call (about 185 more promises a message; a hack, not
kept) answered in 1 513 µs against 1 510 µs for the build before, side by side: a promise and a
suspended frame cost well under a microsecond here, and a synchronous core for the file store would
not find the 240 µs. Three more changes were timed side by side and not kept: the message written
with the reply instead of before the model call (one write fewer; 15–57 µs sooner before the
upstream call, 15–24 µs later after it, with 8 file-system calls before it instead of 6: the whole
unchanged); the JSON answer sent before the turn's held events, transcript cache and \`turn-end\`
(63–113 µs sooner after the upstream call, the whole 50–80 µs sooner in two runs of three and
25 µs later in the third: the work only moves to when the next message arrives, back to back
here); the gateway's observers run after the answer (the whole 23 µs sooner, within the noise).
What the gateway's CPU is spent on instead, by the kernel's clock (\`perf record -e cpu-clock\` at
15 kHz over 3 000 messages one at a time, \`--perf-basic-prof\`): the main thread 73 % of the
process's samples, V8's worker threads 19 % (concurrent marking, sweeping, parallel scavenges,
optimizing compiles) and libuv's 7 % (the fsync); by code, V8's and Node's native code 59 %
(property-load and call builtins, promise machinery, the collector), the kernel 22 % (waking and
switching threads about 8 %, the system calls), JavaScript compiled by V8 14 %, libc 5 %; no
JavaScript function above 1.5 % (\`repairToolPairing\` the first). Garbage collection, from the
probe's second table (1 500 messages each, side by side): Keel 93–107 scavenges per 1 000 messages
pausing it 107–120 µs a message and 2.7 full collections per 1 000 (20–29 µs a message), against 45
scavenges (46–49 µs) and 0.7 full ones (1–6 µs) for the floor with the fixed parts; Keel's
scavenges promoted 25 KB a message into the old generation against 11.7 KB. What they promoted was
not what stays: heap snapshots (one taken mid-traffic, two taken 64 messages apart) held no turn's
objects past its turn, yet V8's allocation sampler put each turn's own objects (the session queue's
closure, the fence, the turn) among what scavenges promoted. The cause, found by taking a turn apart
in one process (\`promotedBytes\` in @keel/testing): a getter written in an object literal is an
accessor pair V8 allocates in the old generation, so the getter's closure and its whole scope
survive every scavenge until the next full collection — and the fence, its lease, the lock's
handle, the turn's fence wrapper and its held events' emitter each had one, the wrapper's closing
over the turn. With those read from shared prototypes (2026-12-05, CONTRIBUTING.md "Objects on the
hot path"), side by side with the build before: 17.2–17.3 KB promoted a message against 25.0–25.1
(two runs), the old generation growing 52–53 MB over 2 000 messages against 70 MB; CPU per message
unchanged within the noise of 200-message blocks (1.75 and 1.80 ms against 1.80 and 1.75, two
gateways of each, 10 rounds). Of the 5.6 KB a message Keel still promotes beyond the floor, none is
one site over 1 KB; Node 20 also keeps every \`AbortSignal\` through scavenges (Node 24 does not),
with the SDK's and the transport's listeners on it. For the CPU rows the gap stays spread over the
turn's work; for the p50 row, no step over 50 µs is left, and the goal needs many cut. The
snapshots found one real leak on the way, fixed: the watch of a lock kept across turns held its
first turn's fence (one per session with a kept lock; session-fence, 2026-12-05).

**At 32 in flight, and what the optional work is worth (2026-12-05, later).** At 32 in flight the
two cores are busy: the client, the provider and the server share them, so throughput follows the
three's CPU per message (the floor section now gives each one's, the server's split by thread).
In blocks of 1 600 messages over 32 sessions of 20+ turns (three rounds), the gateway spent 0.83–0.96
ms of its main thread and 0.45–0.63 ms of its other threads per message, the floor with the fixed
parts 0.34–0.41 and 0.16–0.28. The other threads are V8's collector for the most part: with V8's own
heap heuristics they spent 0.14–0.26 ms after the first round. \`--trace-gc\` over 3 200 messages at 32 in flight: Keel 305
scavenges, 685 ms of main-thread pause (214 µs a message, 2.2 ms each: every scavenge copies the
turns then in progress) and 11 full collections (23 µs a message), against 158 scavenges (103 µs)
and 6 full ones (14 µs) for the floor with the fixed parts. Scavenges come with allocation: V8's
sampling heap profiler (collected objects included, 2 000 messages one at a time) put Keel at
305 KB a message against 145 KB — session-fence 60 KB and the orchestrator 44 KB, spread over their
\`async\` frames and small objects (no site over 7 KB), the gateway 9 KB, the fence's \`BigIntStats\`
7 KB; the \`openai\` SDK (44 KB) and the transport (25 KB) the same in both. A young generation of 6
or 8 MiB semi-spaces instead of 4 gave 15–25 % more throughput at 32 in flight (three gateways side
by side, 4–8 rounds; a third less CPU on the other threads), the CPU one at a time within the
noise; but the bounded-memory run with 8 ended at 187 MiB (peak 196) against 172 (peak 181) in the
same hour, its CPU per message the same (2.87 against 2.84 ms at 16 in flight over 1 000 sessions):
not adopted, as the 32-in-flight row would stay under half of direct (about 40 %) while the memory
row's margin fell from 19 MiB to 4. Last, what the work that is not the turn's core is worth: a
build without the gateway's request hooks (loopback \`Host\`, origin, shutdown, the two \`finish\`
listeners, storage outcomes), its event observers (event log, call log, metrics, tracer), the
fence's last check after the answer and the transcript cache's weighing (a hack, not kept), side by
side with this build in \`critical-path.ts\` (1 500 messages each): 1 991 µs a message against
2 075 (the part after the upstream call 643 against 709 µs), and within the noise in CPU per
message and throughput at 32 in flight (six variants, 8–10 rounds of blocks). Nor is the fence's
protocol the most of it: a build whose fence only wrote (no lease, no check, no adopting; the
store's state read at the turn's start and its appends as before — a hack, not kept) answered in
1 718 µs against 1 839, side by side, the floor with the fixed parts in 1 247: 121 of Keel's 592 µs
above the floor, none of it before the upstream call (716 against 707 µs there, the floor 427).
What is left is the turn's own way from the request to the upstream call and back — the session
queue, the transcript's state and the message's write, the turn's preparation and events, the
request's building, the reply's write — each tens of microseconds (the marks above), and the
collection their allocations cause: the issue-20 rows left need that core to do less per message,
not the work around it. The last lead named for it, a synchronous core for the file store, was
measured once more for CPU this time: a build with twelve more nested \`async\` frames around every
storage call (a hack, not kept; its frames seen in a CPU profile) spent 1.55 and 1.80 ms of CPU per
message one at a time against 1.70 and 1.65 for the same build without them, 728 and 736 messages a
second at 32 in flight against 669 and 731 (two gateways of each, 10 rounds): no difference either
way, so taking frames away would not find the CPU rows' gap either. Why steps of a few syscalls
cost tens of microseconds in the gateway: the fence's turn cycle in a loop of its own (one process,
the file store, fsync off, 64 sessions of 20 turns, 3 500 turns after 500; a script, not kept) took
18 µs to acquire, 17 to append the message, 9 to reacquire, 16 to append the reply and 10 to end —
71 µs in all, where the marks above found 90–110, 56–70 and 41–48 µs for the first three inside
the gateway. The same loop reading 16 MiB of other memory between steps (what a message's other
work does to the caches) took 169 µs (acquire 53, message 37, reacquire 20, reply 32, end 25; 1 MiB
between steps: 81, 4 MiB: 102). So most of a step's cost in the gateway is memory and code brought
back into the caches the message's other steps evicted: what would lower it is touching less per
message — fewer objects and less code on the message's way — not a faster form of any one step.
Allocation alone is not it either: a build making 150 KB more of small, at once dead objects per
message (a hack, not kept; about what Keel allocates beyond the floor) spent 1.75 and 1.70 ms of
CPU per message one at a time against 1.55 and 1.45 (the making of them included), at the same p50
(2.52 against 2.48–2.52 ms) and 1–2 % less throughput at 32 in flight. Nor is the compiler: after
3 300 messages of warm-up, \`--trace-opt --trace-deopt\` over the next 9 000 shows 17
deoptimizations (a burst of "wrong map" once, then a few) and 216 optimizations, each 1–3 ms on a
background thread: about 50 µs of background CPU a message, falling as the run goes on.

**The CPU row against Portkey, once more, and on Node 24 (2026-12-05, later).** Section 1 found
Keel at 1.25× and 1.76× of Portkey's not-streamed CPU in its last two runs. Four processes side by
side on a quiet machine (load under 1; Keel as \`pnpm start\` launches it on Node 20 and on Node 24,
Portkey 1.15.2 not streamed on each, the same 20-turn history sent through Portkey while Keel's
64 sessions grew from 20 to about 60 turns; 8 rounds of 300-message blocks, each process's CPU from
\`/proc\`; a script, not kept): on Node 20 Keel spent 1.50 and 1.70 ms a message against Portkey's
1.47 and 1.63 — within 2–4 %, its blocks spread 1.23–2.10 ms, as a full collection lands in a
block or not — and on Node 24 1.33 and 1.50 against 0.97 and 1.03: Node 24 takes a third off
Portkey's CPU (its \`fetch\`-based proxying) and a tenth off Keel's. The row's verdict on Node 20
turns on the run; on Node 24 it is not met by 0.35–0.5 ms.

**The ladder: which of Keel's parts loses each goal (2026-12-05, later).** Three rungs now stand
between the floor with the fixed parts and the gateway in section "Issue 20: the floor of a durable
gateway", each a process of its own, side by side with the others: the fixed parts with Keel's
session fence over its file store, used as a turn uses it (\`src/lib/fenced-parts-child.ts\`:
acquired, the turn's start and the message written, released for the model call and reacquired,
the reply and the turn's end written with one fsync, ended after the answer; no turn); the fixed
parts with the orchestrator's turn over that fence (\`src/lib/turn-core-child.ts\`:
\`createOrchestrator\` with its defaults, \`runTurn\` per message as the gateway runs it; none of the
gateway's hooks, observers or log lines); and, below the fence, the fixed parts with the fence's
file-system calls made straight (\`src/lib/straight-fence-child.ts\`: the same calls per message —
\`strace -c\`: 6 \`pread64\`, 5 \`statx\`, a \`pwrite64\` for the fencing token, two appends, one
fsync, as the fenced rung — synchronous on kept descriptors, the bytes compared directly; no store,
fence object, digest, validation or framing). In the run written above (load 1–3.4): p50 overhead
+1.19 ms for the fixed parts, +1.35 with the calls made straight, +1.68 with the fence, +2.01 with
the turn, +2.33 for the gateway; throughput at 32 in flight 70, 63, 47, 41 and 33 % of direct; CPU
per message 0.70, 0.85, 1.05, 1.20 and 1.50 ms. With more rounds (scripts, not kept; load 1–2): CPU
one at a time in 300-message blocks, 20 rounds with Portkey not streamed beside the rungs — Portkey
1.33 ms, the fixed parts 0.77, with the fence 1.27, with the turn 1.53, the gateway 1.67 — and 16
rounds with the calls made straight — the fixed parts 0.80, straight 0.97, the fence 1.13, Portkey
1.10; throughput at 32 in flight, 6 rounds of 640 messages — the fixed parts 1 570 and 1 816
a second in two runs, straight 1 620, the fence 1 051 and 1 220, the turn 829, the gateway 704.
So the session fence is the largest step in each goal — with no turn and no gateway around it, the
fixed parts and the fence stay under half of direct's throughput at 32 in flight (41–47 %) — and
most of that step is its implementation, not its calls: the same calls made straight cost a third
to a half of what the fence adds (p50 +0.15 against +0.49 ms, CPU +0.15 against +0.35, throughput
63 against 47 %). No one feature of the implementation holds the difference, each measured side by
side with hacks (not kept) on the fenced rung, 16 rounds each: checks that compare only identity
and size (0.5 reads a message instead of 6, no digest: 1.23 ms against 1.27, and 1.47 against 1.47
with the turn); a cheap digest instead of SHA-256, with and without the entries' validation (1.20
and 1.23 against 1.23); the store's appends alone, no lease and no expected state (0.93 against the
fixed parts' 0.77), its checks and guarded appends without any lease or fence object (1.20), the
real fence (1.10): the lease and the fence object cost nothing measurable beyond the store's own
steps, each of which costs 80–90 µs of CPU in this process (five a message) where the straight
calls cost about 35. Nor is it the store's promises alone: the acquire's state and the two
comparisons made synchronously on the kept descriptor (a hack, not kept: an \`lstat\` and two
reads, no lent file, no promise per call) spent 1.17 and 1.27 ms against 1.30 and 1.30 in two runs,
1 074 against 1 038 messages a second at 32 in flight, where the calls made straight did 1 353.
Earlier, twelve more \`async\` frames per storage call changed nothing either.
What differs is breadth: the implementation's layers (each step a storage call, its queue, a
transcript lent and given back, stats and ranges as promises, states derived and remembered)
touch far more code and objects per message than the calls need, with the caches cold between
steps. The lever this leaves: a common path in the file store that does a kept lease's turn in
straight calls — worth up to 0.2–0.35 ms of CPU and 0.3 ms of p50 a message, about what the CPU
and p50 rows lack — while the 32-in-flight row would still miss (the turn and the gateway take the
fence rung's 47 % to 33 %).

**What each goal would need (2026-12-05, last).** On a quiet machine (load under 1) section 1
measured +2.50 ms p50 over the direct SDK and 36 % of direct's throughput at 32 in flight (section
1's table is from a busier run). From the ladder: the p50 goal leaves Keel 0.81 ms above the floor
with the fixed parts (+1.19 ms), where it spends about 1.3 ms — 38 % less; the fence's common path
made straight (the lever above, up to 0.3 ms) would leave about +2.2 ms. At 32 in flight the two
cores are the limit: direct's 2 093 messages a second put the client's and the provider's CPU at
0.96 ms a message, Keel's 750 put the gateway's at about 1.7 ms, and half of direct needs 0.96 ms
or less — Keel's own work above the fixed parts' 0.41 ms would have to fall from about 1.3 ms to
0.55 (58 % less), of which the fence's calls made straight already take 0.15. The gateway's step
above the turn was taken apart once more with hack builds leaving out one part at a time (not
kept; 12–14 rounds of 300-message blocks after the first, CPU from \`/proc\`): as in “At 32 in
flight” above, the request hooks, the watch over the storage's calls and the compaction threshold
changed nothing measurable; the turn's event observers, all left out, took 0.13 ms off in each of
two runs, no one of them standing out of the noise (a variant leaving out only the log lines, which
at \`warn\` build nothing, measured 0.17 ms under the whole gateway). Apart from the fence's common
path, no one part measured (the turn's steps, timed in place above, take under 50 µs each) holds a
tenth of what the p50 goal lacks: the p50 and throughput goals ask for a message's work through
the fence, the turn and the gateway roughly halved, which is a different design of the whole hot
path, not a cut in this one: a storage port that took a turn's opening and its close in one call
each (a turn now makes seven) would reach the fence's part at most, which the straight rung bounds
at 0.3 ms of p50 and 0.2 ms of CPU.
`;
