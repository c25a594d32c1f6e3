#!/usr/bin/env node
/** `pnpm demo`: a scripted session through injected faults (filled in below). */
process.stdout.write('demo: coming with the gateway issue\n');
