/**
 * Writes to stdout, waiting when the pipe is full (a result of millions of rows into `head`
 * or a slow consumer), and ends quietly when the reader went away (EPIPE). The handler is
 * installed when this module loads, which main.ts does first, so the output of every
 * command (console.log included) and commander's help end as quietly as `query | head`.
 */
let closed = false;
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // Writes after the reader left fail too (the stream is destroyed): nothing more to say.
  if (err.code === 'EPIPE' || closed) closed = true;
  else throw err;
});

export function write(text: string): Promise<void> | void {
  if (closed || text === '') return;
  if (process.stdout.write(text)) return;
  return new Promise((resolve) => {
    const done = () => {
      process.stdout.off('drain', done).off('close', done);
      resolve();
    };
    process.stdout.on('drain', done).on('close', done);
  });
}
