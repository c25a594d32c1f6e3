#!/usr/bin/env node
// The `keel-fake-claude` command. A committed file, so that installing the workspace links it before
// anything is built; the program itself is the build output it imports.
import '../dist/fake-claude-cli.js';
