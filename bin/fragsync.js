#!/usr/bin/env node
// The CLI is written in TypeScript and run through tsx's loader, so `npx fragsync`
// works right after `npm ci` without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
