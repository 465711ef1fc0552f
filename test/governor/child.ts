/**
 * A worker process for the cross-process tests (run with `node --import tsx`):
 *   hammer <redisUrl> <prefix> <limit> <resetAtMs> <workers>  admit/call/settle until paused;
 *                                                            prints {"admitted": n}
 *   admit-and-hang <redisUrl> <prefix>                        admit one call, print the
 *                                                            admission, never settle
 */
import { createRedisGovernor } from '../../src/governor/index.ts';
import { hammer } from './fixtures.ts';
import { CHILD_LIMITS, connect, redisService } from './redis-helpers.ts';

async function main(): Promise<void> {
  const [mode, url, prefix, limitArg, resetArg, workersArg] = process.argv.slice(2);
  if (!url || !prefix) throw new Error('usage: child.ts <mode> <redisUrl> <prefix> ...');
  const redis = connect(url);
  const gov = createRedisGovernor(redis, { prefix, limits: CHILD_LIMITS });
  if (mode === 'admit-and-hang') {
    const a = await gov.admit('getSimilar');
    process.stdout.write(`${JSON.stringify(a)}\n`);
    // Keep running until the test kills this process with SIGKILL.
    setInterval(() => {}, 60_000);
    return;
  }
  const service = redisService(redis, prefix, Number(limitArg), Number(resetArg));
  const admitted = await hammer([gov], service, Number(workersArg ?? 4));
  process.stdout.write(`${JSON.stringify({ admitted })}\n`);
  await redis.quit();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
