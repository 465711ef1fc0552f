// Preload (`node --import`) that plants a bug in the real binary: every `note` job throws a
// TypeError, as a programming mistake inside the engine would. Nothing else is replaced: the
// sync, its queue, the client, the simulator over HTTP and the warehouse stay real.
import { register } from 'node:module';

register(new URL('./bug-in-note-job.hooks.mjs', import.meta.url));
// The hook replaces jobs/note.ts, a file the build (dist/) has bundled: run the sources.
process.env.FRAGSYNC_NO_BUILD = '1';
