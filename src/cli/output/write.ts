/**
 * Writes to stdout, waiting when the pipe is full (a result of millions of rows into `head`
 * or a slow consumer), and ends quietly when the reader went away (EPIPE).
 */
let closed = false;
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') closed = true;
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
