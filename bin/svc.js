#!/usr/bin/env node
// The `svc` binary: a tiny launcher for the bundled CLI (built by `npm run build`).
import { main } from '../dist/cli/main.js';

process.exitCode = await main();
