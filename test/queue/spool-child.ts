/**
 * A fetch worker's spool in a process of its own, for test/queue/spool.test.ts (run with
 * `node --import tsx`): spool-child.ts <redisUrl> <prefix> <dir>
 *
 * Sends c1, c2, c3; c1 and c2 are answered, c1's report is made and taken at once; a check
 * seals the segment (c2 unreported and c3 on the wire carry over to the next one) and drops
 * it. Prints "ready" and waits for the test's SIGKILL.
 */
import pino from 'pino';
import { CallSpool } from '../../src/queue/spool.ts';
import { connect } from '../governor/redis-helpers.ts';
import { answeredCall as answer, sentCall } from '../warehouse/fixtures.ts';

async function main(): Promise<void> {
  const [url, prefix, dir] = process.argv.slice(2);
  if (!url || !prefix || !dir) throw new Error('usage: spool-child.ts <redisUrl> <prefix> <dir>');
  const redis = connect(url);
  let jobs = 0;
  // No job key is written: the owner took each report at once.
  const spool = await CallSpool.open({
    dir,
    redis,
    prefix,
    report: async () => `job-${++jobs}`,
    resend: async () => undefined,
    rotateMs: 60_000,
    log: pino({ level: 'silent' }),
  });
  for (const id of ['c1', 'c2', 'c3']) spool.sent('run-a', sentCall(id));
  spool.answered('run-a', answer('c1', 200));
  spool.answered('run-a', answer('c2', 500));
  spool.reported({ type: 'ledger', runId: 'run-a', calls: [answer('c1', 200)] }, 'job-c1');
  await spool.check();
  process.stdout.write('ready\n');
  setInterval(() => {}, 60_000);
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
