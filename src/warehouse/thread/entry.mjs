// The loader thread's entry. Worker threads start with Node's own module loader, so tsx is
// registered here before the TypeScript handler is imported (as bin/fragsync.js does).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
