#!/usr/bin/env node
// The `keel-gateway` command. A committed file, so that installing the workspace links it before
// anything is built; the program itself is the build output it imports.
import '../dist/cli.js';
