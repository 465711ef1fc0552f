import { startDashboard, BOARD_PATH } from '../../dashboard/server.ts';
import { ConfigError } from '../../errors.ts';
import { connectRedis, governorLimits } from '../../sync/runtime.ts';
import { EXIT } from '../exit-codes.ts';
import { listenError } from '../listen-error.ts';
import { configOf, type CommandInput } from '../spec.ts';

/** Basic auth credentials: environment only (never a flag, never a config file, never logged). */
export const AUTH_ENV = { user: 'FRAGSYNC_DASHBOARD_USER', password: 'FRAGSYNC_DASHBOARD_PASSWORD' } as const;

/** Hosts only this machine can reach. */
const LOOPBACK = /^(localhost|127(\.\d+){3}|::1|\[::1\])$/;

function authFromEnv(env: NodeJS.ProcessEnv): { user: string; password: string } | null {
  const user = env[AUTH_ENV.user];
  const password = env[AUTH_ENV.password];
  if (!user && !password) return null;
  if (!user || !password)
    throw new ConfigError(`basic auth needs both ${AUTH_ENV.user} and ${AUTH_ENV.password} (one is set)`);
  return { user, password };
}

export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  if (!config.redisUrl) throw new ConfigError('config: redisUrl is required (--redis URL or REDIS_URL)');
  const auth = authFromEnv(process.env);
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const redis = await connectRedis(config.redisUrl);
  let dashboard;
  try {
    dashboard = await startDashboard({
      redis,
      prefix: config.queue.prefix,
      dbPath: config.dbPath,
      limits: governorLimits(config),
      host: input.opts.host as string,
      port: input.opts.port as number,
      auth,
    });
  } catch (err) {
    redis.disconnect();
    throw listenError(err, String(input.opts.host), input.opts.port as number);
  }
  // Reachable from other machines with no password: said once, before the address.
  if (!auth && !LOOPBACK.test(String(input.opts.host)))
    console.error(
      `fragsync dashboard: warning: listening on ${String(input.opts.host)} with no basic auth: anyone who can reach the port sees the quota, spend, runs and queues, job payloads included (the board is read-only; set ${AUTH_ENV.user} and ${AUTH_ENV.password})`,
    );
  console.log(
    `dashboard on ${dashboard.url}/ (queues: ${dashboard.url}${BOARD_PATH}${auth ? '; basic auth on' : ''})`,
  );
  await stopped;
  await dashboard.close();
  redis.disconnect();
  return EXIT.ok;
}
