/**
 * The machine's floor for latency hiding (issue 16's target "calls/s >= 0.9 x concurrency /
 * latency"): a client that does nothing with the answers. As many loops as requests in flight,
 * each on its own keep-alive connection, each requesting the next path of a sample of the
 * reference mirror's own calls (so the same mix of endpoints and response sizes) and reading the
 * body to its end, discarded: no decoding, no parse, no storage. What it reaches in a fixed time
 * is what the service's own processing and the two processes sharing the cores leave to any
 * client; the sync's calls/s as a fraction of it is the latency hiding this machine can show.
 */
import { Pool } from 'undici';

export interface FloorFigures {
  calls: number;
  wallS: number;
  /** Mean time from a request's start to the last byte of its body, as seen by this client. */
  meanMs: number;
  cpuMsPerCall: number;
  bytesPerCall: number;
  /** The service process's CPU per call over the floor, or null without /proc. */
  serviceCpuMsPerCall: number | null;
}

/**
 * A uniform sample of at most `size` of the paths offered (reservoir sampling, algorithm R):
 * the mirror's mix in proportion, in memory that does not grow with the catalogue.
 */
export class PathSample {
  readonly paths: string[] = [];
  private seen = 0;
  constructor(private readonly size = 4096) {}
  offer(path: string): void {
    const i = this.seen++;
    if (i < this.size) this.paths.push(path);
    else {
      const j = Math.floor(Math.random() * (i + 1));
      if (j < this.size) this.paths[j] = path;
    }
  }
}

export async function runFloor(opts: {
  url: string;
  key: string;
  paths: string[];
  concurrency: number;
  seconds: number;
  serviceCpuS?: () => number | null;
}): Promise<FloorFigures> {
  if (opts.paths.length === 0) throw new Error('floor: no paths to request');
  const paths = [...opts.paths];
  for (let i = paths.length - 1; i > 0; i--) {
    // Shuffled: the sample's first slots are the mirror's first calls (list pages).
    const j = Math.floor(Math.random() * (i + 1));
    [paths[i], paths[j]] = [paths[j]!, paths[i]!];
  }
  const pool = new Pool(opts.url, { connections: opts.concurrency, pipelining: 1 });
  const headers = { authorization: `Bearer ${opts.key}` };
  let calls = 0;
  let seenMs = 0;
  let bytes = 0;
  const service0 = opts.serviceCpuS?.() ?? null;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + opts.seconds * 1000;
  const loop = async (start: number): Promise<void> => {
    for (let k = start; performance.now() < end; k++) {
      const path = paths[k % paths.length]!;
      const s = performance.now();
      const res = await pool.request({ path, method: 'GET', headers });
      for await (const chunk of res.body) bytes += (chunk as Buffer).length;
      if (res.statusCode !== 200) throw new Error(`floor: GET ${path}: ${res.statusCode}`);
      seenMs += performance.now() - s;
      calls++;
    }
  };
  const step = paths.length / opts.concurrency;
  await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => loop(Math.floor(i * step))));
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const service1 = opts.serviceCpuS?.() ?? null;
  await pool.close();
  return {
    calls,
    wallS,
    meanMs: seenMs / calls,
    cpuMsPerCall: (cpu.user + cpu.system) / 1000 / calls,
    bytesPerCall: bytes / calls,
    serviceCpuMsPerCall:
      service0 === null || service1 === null ? null : ((service1 - service0) * 1000) / calls,
  };
}

/** The line bench-scale.ts parses (keep its start as it is). */
export function floorLine(f: FloorFigures, concurrency: number): string {
  return (
    `floor: ${f.calls} calls in ${f.wallS.toFixed(1)} s = ${(f.calls / f.wallS).toFixed(0)} calls/s, ` +
    `mean seen ${f.meanMs.toFixed(2)} ms, client CPU ${f.cpuMsPerCall.toFixed(3)} ms/call, ` +
    `${concurrency} in flight, ${(f.bytesPerCall / 1024).toFixed(1)} KiB/call` +
    (f.serviceCpuMsPerCall === null ? '' : `, service CPU ${f.serviceCpuMsPerCall.toFixed(3)} ms/call`)
  );
}
