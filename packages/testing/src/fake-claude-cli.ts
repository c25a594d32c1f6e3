#!/usr/bin/env node
import { runFakeClaude } from './fake-claude-run';

runFakeClaude(process.argv.slice(2));
