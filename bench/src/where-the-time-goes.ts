/**
 * The closing section of `BENCHMARKS.md`: written by hand from the profiles it names (they were
 * taken on this machine while the hot path was reworked); the rows above give the figures.
 */
export const WHERE_THE_TIME_GOES = `## Where the time goes

**How it was profiled.** The orchestrator's turn and the gateway's message were run in a loop under
\`node --cpu-prof\` (summed by function, self and inclusive time), under \`strace -f -c\` (system
calls by count and time) and \`strace -f -T\` (the time of each file system call, by file), and with
every fence, storage and model call timed (the breakdown in the issue 9 section above is that
instrumentation, kept in \`bench/src/orchestrator-overhead.bench.ts\`).

**What was there.** A turn's fence cycle made 58 asynchronous file system requests (lease 10,
first append 11, release 11, reacquire 12, reply 7, end 11), each a round trip through libuv's
thread pool that costs 50–200 µs on this loaded machine while the system call itself takes a few
microseconds; the CPU profile showed the process idle a third of the time, waiting on them. Every
lease also created a private lock file (\`O_CREAT | O_EXCL\`) and removed it at release: \`strace -T\`
put an \`O_CREAT\` open at 0.15–1 ms (ext4 allocates an inode and waits on its journal while other
processes fsync), against 20–60 µs for a \`link\`, \`rename\` or \`unlink\` and 3–20 µs for an
\`lstat\`, a 4 KiB read or a 40-byte write. Checks hashed 4 KiB windows with SHA-256 up to 16 times a
turn, and the orphan scan read 64 KiB through the thread pool for a 1 KB file.

**What was removed** (\`@keel/session-fence\`, public API unchanged; its test suite and the storage
conformance suite in \`@keel/testing\` pass, and the fence's guarantees hold: every owned write is
checked and written under one lock hold, every foreign write is noticed):
- small metadata calls (\`lstat\`, \`fstat\`, reads and writes up to 16 KiB, \`link\`, \`rename\`,
  \`unlink\`, \`futimes\`, opens without \`O_CREAT\`) are made synchronously; \`fsync\`, \`O_CREAT\` opens,
  large reads and writes, \`mkdir\` and \`readdir\` stay asynchronous (\`file-system.ts\` says why);
- a lock keeps its private file between holds and links it again (a hold no longer creates or
  removes a file); the spare is removed at exit, at garbage collection, or — left by a killed
  process — by the next store that writes in the directory;
- the fencing-token counter is opened without \`O_CREAT\` (which takes the directory's lock even
  when the file exists); a kept transcript descriptor is proven current by one \`lstat\` (no
  \`fstat\`); digests of bytes seen before are not recomputed; a lease taken a moment ago is not
  checked again at reacquire (the next owned write checks it atomically);
- the backward line reader starts with a 16 KiB chunk (one synchronous read) and doubles.

The fence cycle went from 58 thread-pool round trips to 2 (the fsyncs), and from about 5× one
durable append to under 3× (issue 8 §3 above).

**What is left in a durable turn.** Two fsyncs: the user's message is written before the model is
called and fsynced during the call (DESIGN.md "Durable before acknowledged": nothing about the turn,
\`turn-start\` included, goes out before that fsync is done), and the reply is durable before the
client is answered. Each is as dear as the plain \`fs\` baseline's fsync (the disk, not Keel); with
a model that answers in a millisecond the turn still waits for the message's fsync, so on this
machine, under the other engineers' runs, the two are more than the 1 ms that issue 9 and row 1
allow. (\`fdatasync\` measures the same as \`fsync\` for these appends on ext4.)
Two leases (a lease is a \`link\`; letting it go a \`rename\`, an \`lstat\` and an \`unlink\`: the safe
removal that never unlinks a successor's lock), and about 40 file-system calls in all per message
(counted by \`strace\` in the issue 9 section).
Then the orchestrator's own work per turn (queueing, building the request from the transcript,
events, provider health, the compactor's threshold check), which grows with the conversation's
length, and in the gateway the HTTP request and answer (Fastify, JSON). At many messages in flight
the two cores are shared by the client, the gateway, the provider and the other runs.

**The gateway's CPU, by package.** Profiled with \`--cpu-prof\` at one message in flight, fsync off
(1 500 messages over 8 sessions of up to 190 turns): undici, web streams and the \`openai\` SDK —
the gateway's own upstream call, the same work the direct client does — 17 %; socket writes 7 %;
the orchestrator 6 % (a pass over the whole conversation for its facts, one for the model context
and one for tool pairing: they grow with the conversation); Fastify and its router 6 %; garbage
collection 4 %; session-fence 4 % in JavaScript and 3 % in system calls; the compactor's threshold
check 3 % (\`@keel/compaction\` estimates the tokens of every message on every turn: the next thing
to cache, per entry, in that package); pino 1 %; idle 21 %. Not changed here: the HTTP layer and
the compactor belong to other packages, and the orchestrator's passes are each a few tens of
microseconds at these lengths.

**The gateway's CPU with fsync on and 20-turn histories** (issue 20; profiled on 2026-12-02 with
\`--cpu-prof\` at load 13–18, so shares rather than milliseconds: 1 280 messages giving 64 sessions
20 turns each at 8 in flight, then 1 500 messages one at a time; idle 28 %). Of the busy samples:
socket writes (\`writev\`) 10.5 %; the \`fsync\` binding 8.8 % and the fence's other file-system
calls (\`open\`, \`read\`, \`link\`, \`lstat\`, \`rename\`, \`writeBuffer\`) 6 %, session-fence's
JavaScript 9 %; garbage collection 13 %; undici, Node's web streams and abort signals (the
gateway's own upstream call) and the \`openai\` SDK about 15 %; the orchestrator 6 %; async hooks
2.7 % — every promise pays \`AsyncLocalStorage\`'s init hook on Node 20, and three are live in the
gateway (the keys' call ticket, the compaction usage scope, the orchestrator's health cause);
Fastify, its router and ajv 3.4 % (its per-request child logger 0.5 %); the transport 1.5 %; the
gateway's own code 3 % (the event log sizing each non-delta event by \`JSON.stringify\` 0.4 %, the
storage-status wrappers 0.4 %, the observers, the answer's body), pino 0.1 % at \`warn\`. The
gateway's own code cannot close the gap to Portkey's not-streamed CPU (row 1's CPU table): what
Keel adds is the durable transcript (the fence's system calls and JavaScript, ~24 %), the
promise hooks and the collections its allocations cause.

**Changed since that profile.** The orchestrator keeps each session's facts (answered messages,
client message ids, the selected model) and updates them with the entries a turn adds, instead of
a pass over the whole conversation per turn; it hands a turn's transcript to the next turn instead
of copying it twice, and builds the model context in one pass fewer. The compactor estimates each
entry once (the estimate is kept per entry object) and answers \`shouldCompact\` before the
orchestrator calls \`compact\`, so a turn that needs no compaction does not go through a compaction
run. The facts pass and the copies cost about 0.3 ms per turn at 250 turns (a profile of the
orchestrator alone); building the model context, and the request the SDK serializes, stay linear
in the conversation's length, as the request is for the direct client.

**Node 20's own costs, found on 2026-12-03.** A CPU profile spreads the gateway's time thin, so
V8's map log (\`node --log-maps\`, counted per message over 1 000 messages) was read too: 84 map
transitions or creations per message, most of them for objects that are made the same way every
time. On Node 20 an object literal that starts with a spread (\`{ ...base, ...event }\`,
\`{ ...rest, messageId }\`, \`{ ...(signal === undefined ? {} : { signal }), flush }\`) gets a new
map for every property after the spread once its inline cache has warmed up (0.6–1 µs against
50–90 ns, and every reader of those objects megamorphic); a generator function declared inside
another makes its own prototype object and map at each call (2.5–3 µs); a literal with a getter is
a dictionary-mode object (1.6–2.5 µs). The turn events, outcomes, option objects and stream decoders
on the message's path were rewritten (\`CONTRIBUTING.md\`, "Objects on the hot path"): 25 map events
per message remain, mostly the \`openai\` SDK's own (its request details formatted for a debug line
with a \`delete\`, a nested generator per stream) and \`AbortSignal\`s (Node 20 sets each signal's
prototype after making it). The SDK now reads the model's answer straight from the \`node:http\`
stream instead of through a web \`ReadableStream\` (\`makeTransferable\` alone was 1.7 % of the
busy time). Together, side by side with the build before: 10–20 % less CPU per message.

**What is Keel's own, measured on 2026-12-04.** The durable floor with the parts the project keeps
(section "Issue 20: the floor of a durable gateway": Fastify on the native route, the \`openai\`
SDK through \`@keel/transport\`, the two durable appends, the answer as JSON) reached all three of
section 1's issue-20 goals in both full runs: +1.41 and +1.76 ms p50 over the direct SDK, 62 and
66 % of direct throughput at 32 in flight, 1.20 and 1.40 ms of CPU per message — Keel, in the same
rounds, +3.51 and +4.33 ms, 20 % both, 3.55 and 3.80 ms. The gap is Keel's own work, not the SDK, Fastify or the disk. Of it:
- The heap flag. Section 1 measures a gateway without \`--optimize-for-size\` beside the CLI's:
  0.87 and 1.06 ms lower p50 in two runs, and 3.00 against 5.20 ms, 3.85 against 6.30 ms, of CPU
  per message. By thread
  (\`/proc/<pid>/task/*/stat\`, 2 480 messages each, two gateways side by side): the main thread
  6.89 s with the flag against 6.01 s without (+15 %), V8's worker threads 2.67 s against 2.02 s
  (+32 %), libuv's thread pool 0.66 s both. Collections counted by \`PerformanceObserver('gc')\`:
  161 scavenges against 68 (the flag keeps the young generation small), 6 full collections each;
  their pauses on the main thread add up to 0.04 ms per message more, a small part of the cost.
  Tried on 2026-12-04 and dropped: \`--single-threaded-gc\` (10 % less CPU in one run at launch,
  latency the same) cannot be set from inside the process — \`v8.setFlagsFromString\` after start
  aborts V8 (\`Check failed: concurrent_marking_handle_\`), as does \`--no-concurrent-marking\` at
  launch with the CLI's runtime flag — so it needs a launcher that starts \`node\` with its flags;
  keeping bytecode (\`--no-flush-bytecode\`) changed nothing.
- Allocations. 396 KB per message (V8's sampling heap profiler with collected objects included,
  3 330 messages over 64 sessions of 20-odd turns): the orchestrator 81 KB (the model context 27 KB:
  a new message object for every entry on every turn), session-fence 71 KB (the \`Stats\` objects
  of its \`lstat\`s 8 KB, the append path, a fence made per turn), the \`openai\` SDK 53 KB (headers,
  request options, the SSE parser), Node's internals 43 KB, the transport 36 KB (message conversion
  14 KB), the gateway 8 KB, Fastify 5 KB. Under the flag every allocated byte costs more collection
  work, so the next cut is allocations rather than system calls: a model context, and its converted
  form, kept per session and extended by what each turn adds instead of rebuilt.
- The orchestrator's turn (in process, timed call by call, fsync on against off, 3 000 turns
  each): the reply's write and fsync take 0.54 ms against 0.09 ms without fsync, and an fsync a
  millisecond after the last one costs 0.35–0.45 ms here against 0.2 ms back to back; the message's
  fsync, overlapped with the model call, costs nothing visible (the call 1.57 against 1.59 ms).
  Writing the message unflushed, for the reply's fsync to cover (one fsync a turn), was tried and
  measured no faster (+1.28 and +1.44 ms against +1.53 and +1.22 ms, two runs each): dropped for
  the turn's latency — and taken up later for its CPU, for answers sent whole (below). From
  the message's write to the model call, building the request takes 0.34 ms of JavaScript.
- Memory. A heap snapshot at 1 000 sessions (10 000 messages, without the flag) holds 67 MB —
  code 11 MB, strings 14 MB, plain objects 8 MB, the watchers of 1 000 kept leases — while the
  process's RSS was 320 MiB: V8's own heuristics let the heap grow to several times what is alive,
  which is why the CLI keeps the flag (section "Issue 20: bounded memory").

**The heap, bounded at launch (later on 2026-12-04).** The flag's cost was its small young
generation, not the bound on memory: with a young generation chosen at launch
(\`--max-semi-space-size=4\`, 8 MiB) and the old generation held to 15 % above what the last full
collection found alive (\`--heap-growing-percent=15\`, which the gateway sets as it starts — a
young generation cannot be resized after start-up, and \`NODE_OPTIONS\` refuses the growth flag),
100 000 messages to 1 000 sessions ended at 166 MiB, flat (section "Issue 20: bounded memory"),
and section 1's CPU blocks, side by side, gave 4.25 ms per message against 6.50 with
\`--optimize-for-size\` and 3.65 with V8's unbounded heuristics; its p50 overhead was 0.14 ms above
the unbounded gateway's, where the flag's had been 0.87–1.06 ms. \`pnpm start\` launches the
gateway so; \`keel-gateway\` started without launch options keeps the flag as its fallback.

**Carried on, and one fsync for an answer sent whole (later on 2026-12-04).**
- A pass over the whole conversation costs far more in a busy process than in a tight loop: its
  entries were written turns ago and are no longer in the CPU's caches. \`buildModelContext\` took
  60–67 µs a turn at 190–250 entries in an orchestrator serving 32–64 sessions in turn, 10–12 µs on
  the same entries in a loop. The orchestrator now carries a turn's model context on from the last
  call on the same transcript (only the entries appended since are read; the messages placed for
  good are reused): 6 µs. The first pass to touch the messages then pays the misses instead (tool
  pairing: 2.4 → 10–12 µs; the transport's conversion got cheaper by about as much), so a turn
  gains 10–20 µs at these lengths, and allocates a message object less per entry — not visible in
  section 1's CPU blocks, whose noise is larger. The \`openai\` SDK's serialization of the request
  touches every message too (as the direct client's does): what is left of the misses is there.
- An fsync costs the gateway CPU, not only time: side by side at load ~1, the gateway with
  \`fsync: false\` spent 1.77 ms per message against 2.23 ms. DESIGN.md lets a message's fsync
  wait for the reply's when nothing of the turn goes out before it, and a JSON answer in a session
  no client follows is such a turn: the gateway now asks for it there (\`messageFlush:
  'with-reply'\`; streamed answers and followed sessions keep the message's own fsync during the
  model call). Measured before it landed, side by side (two gateways of each, 8 blocks of 300
  messages): 2.00–2.07 ms of CPU per message against 2.30–2.40 (8–13 % less), p50 1.81 against
  1.84–1.88 ms, p90 3.24–3.32 against 3.54–3.58 ms. For a turn alone the latency is the same
  (\`orchestrator-overhead\`: +0.76 ms both ways, the model answering in under a millisecond).
  The two floors in "Issue 20: the floor of a durable gateway" flush once too, so that section
  still compares like with like. Memory, measured again after both changes: 178 MiB after 100 000
  messages to 1 000 sessions (peak 183), +1 % over the last half (was 166, peak 181).
- Load moves every absolute figure by up to two: in two quieter runs (load 1–2) Portkey's
  not-streamed proxy spent 1.25 and 1.50 ms of CPU per message and Keel 2.90 and 2.80 (as
  \`pnpm start\` runs it), against 2.65 and 4.25 at load 3–4; Keel's p50 overhead was +2.38 and
  +2.55 ms against +4.21, and the orchestrator's turn +0.76 ms against +1.15 (met at load 1, not
  at load 2). At such a load the heap bound is the largest
  part of the CPU left: side by side, \`node --max-semi-space-size=4\` (the gateway then bounding
  the old generation at 15 % growth) spent 2.10 and 1.90 ms per message against 1.50 and 1.60 with
  V8's own heuristics (memory not bounded) in two runs; \`--single-threaded-gc\` at launch 1.70,
  \`--heap-growing-percent=30\` 1.80 (one run, not adopted: their memory was not measured).
- A message that follows a pause costs more than one that follows another: the gateway's code and
  data have left the CPU's caches while the client, the provider and the other variants ran. Three
  gateways side by side, each message sent after a 30 ms pause: 3.7–6.0 ms of CPU per message and
  a p50 of 4.1–5.5 ms, against 1.9–2.1 ms and 1.6–1.8 ms back to back. Section 1's latency rounds
  interleave seven variants (Portkey's streamed answers take ~30 ms), so its p50 overhead
  (+2.4–2.6 ms at load 1–2) sits above what the floor section, with five, finds for the same
  gateway (+1.40 ms); its CPU blocks run each variant back to back. Not settled, not adopted:
  with \`--no-memory-reducer\` given at launch, three runs of three gateways after pauses spent
  4.33, 4.83 and 4.50 ms of CPU per message against 5.33, 6.00 and 5.33; set at run time, 4.83 in
  the third, and nothing in a run of two (3.67 against 3.83); and \`--trace-gc\` over such a run
  shows no collection of the memory reducer's either way (9 and 8 full collections, as many
  scavenges), so the difference may be the run's noise.

**Keel's own work beside the fixed parts, and the old generation's headroom (2026-12-04, later).**
Profiles of the built gateway and of the floor with the fixed parts (\`node --cpu-prof\`, 3 000
messages one at a time over 64 sessions of 20+ turns, each process on its own, both with
\`--max-semi-space-size=4\`; the floor's old generation then still grew by V8's heuristics — since
this change the floor section bounds it as the gateway does), per message:
- The collector: about 310 µs of the gateway's main thread against 94 µs for the fixed parts. The
  gateway allocates 316 KB a message against their 152 KB, and 25 KB of it outlives two
  scavenges and is promoted (12 KB for the fixed parts: the HTTP request and response objects).
  With the old generation held to 15 % above what is alive, a heap of 35–40 MiB ran a full
  collection every 5–8 MiB promoted: 14 per 3 000 messages, each about 25 ms of incremental
  marking on the main thread and 40–70 ms on V8's background threads (\`--trace-gc-nvp\`; the
  whole collector about 560 µs of CPU a message across threads). The bound is now 16 MiB or 15 %,
  whichever is more (\`apps/gateway/src/bound-heap.ts\`): 7 full collections per 3 000, the
  collector about 400 µs; side by side (section 1's CPU blocks, two gateways of each, 12 rounds)
  1.95 and 1.85 ms of CPU per message against 2.45 and 2.20, p99 a third lower, 12 % more
  throughput at 32 in flight; memory in section "Issue 20: bounded memory". V8's own heuristics
  still spend less (1.75 ms in the same kind of run; RSS 271 MiB over just 64 sessions).
- Fastify and its router: about 270 µs against 115 µs — the gateway's seven hooks on every
  request (loopback \`Host\`, origin, shutdown twice, two \`finish\` listeners, storage outcomes;
  each an \`async\` function: a promise and a microtask) and its route table; the orchestrator about 215 µs; session-fence about 160 µs of
  JavaScript plus its 12 file-system calls (5 \`lstat\`, 3 reads, 3 writes, an fsync; about
  140 µs, each a microsecond or two in a tight loop, ten or more between messages); the gateway's
  own code (events, metrics, storage watch) about 110 µs. The \`openai\` SDK costs both about
  240 µs. No single function holds more than 1.6 % of the gateway's samples: what is left is many
  small steps (\`async\` layers, each a promise and a suspended frame), not one hot spot.
- A message after a 30 ms pause costs the fixed parts 1.6–1.95 ms of CPU against 0.85–1.1 back to
  back (200 messages a block, four blocks of each): the pause effect above is the machine's
  (caches and a sleeping CPU), not Keel's code; Keel pays it in proportion to what it runs.
- Not adopted: \`--single-threaded-gc\` at launch, 10 % less CPU but p50 3–9 % and p90 14 %
  higher, 6 % less throughput at 32 in flight (two gateways of each, 16 rounds);
  \`--no-concurrent-marking\`, 7–12 % less CPU with p50 and throughput mixed (12 rounds): within
  the noise of one run.
- Less heap to walk: a full collection marks everything alive, code included — a heap snapshot
  of the gateway at 64 sessions held 40 MB in 443 000 objects, 10 MB of them code. The gateway
  loaded the PostgreSQL store's package (with its driver) and the MCP client (with its protocol's
  schemas) whatever its configuration; now each is loaded only when configured: importing the
  gateway takes 9.6 MiB of heap instead of 15.1. Side by side with the build before (two gateways
  of each, 12 rounds over 64 sessions): RSS 80–83 MiB at start against 87–89, 146–147 MiB at the
  end against 152–153; CPU per message within the run's noise (2.50 / 3.25 against 2.85 / 2.95 ms),
  throughput at 32 in flight 563 / 515 against 529 / 474. The memory bench after it: 166 MiB after
  100 000 messages to 1 000 sessions (peak 187), against 177 (peak 192) the run before.

**A message's way through the server (2026-12-05).** \`src/critical-path.ts\` times each message
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
`;
