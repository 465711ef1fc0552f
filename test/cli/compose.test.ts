import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseCommandLine } from '../../src/cli/program.ts';

/**
 * docker-compose.yml, checked without a Docker engine: its structure after YAML merge keys
 * (what `docker compose config` would print, less interpolation), and every fragsync
 * command it runs, parsed by the real command line.
 */

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  hostname?: string;
  profiles?: string[];
  depends_on?: Record<string, { condition?: string; required?: boolean }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
}

const root = new URL('../../', import.meta.url);
const text = readFileSync(new URL('docker-compose.yml', root), 'utf8');
const compose = parse(text, { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const ours = Object.entries(services).filter(([, s]) => s.build !== undefined);
const envExample = readFileSync(new URL('.env.example', root), 'utf8');

/** A fragsync command line as the image runs it (ENTRYPOINT node bin/fragsync.js, or spelt out). */
function cliArgs(command: string[]): string[] {
  const i = command.indexOf('bin/fragsync.js');
  return i >= 0 ? command.slice(i + 1) : command;
}

function parses(args: string[]): string {
  let said = '';
  const inv = parseCommandLine(args, { out: () => undefined, err: (t) => (said += t) });
  return inv.kind === 'run' ? 'ok' : `refused: ${said.trim() || `exit ${inv.code}`}`;
}

describe('docker-compose.yml', () => {
  it('every fragsync command it runs (services and healthchecks) exists, with options the command takes', () => {
    const commands: [string, string[]][] = [];
    for (const [name, s] of ours) {
      expect(s.command, name).toBeDefined();
      commands.push([name, cliArgs(s.command!)]);
      if (s.healthcheck) {
        expect(s.healthcheck.test.slice(0, 3)).toEqual(['CMD', 'node', 'bin/fragsync.js']);
        commands.push([`${name} healthcheck`, cliArgs(s.healthcheck.test)]);
      }
    }
    expect(commands.length).toBeGreaterThanOrEqual(9);
    for (const [where, args] of commands) expect(parses(args), `${where}: ${args.join(' ')}`).toBe('ok');
    // The check itself refuses what does not exist.
    expect(parses(['worker', '--heartbeet', 'x'])).toMatch(/unknown option '--heartbeet'/);
  });

  it('reaches the real service: base URL and key come from the environment, the simulator only in `demo`', () => {
    expect(services.sim?.profiles).toEqual(['demo']);
    for (const [name, s] of Object.entries(services)) {
      const notDemoOnly = !(s.profiles ?? []).every((p) => p === 'demo') || s.profiles === undefined;
      if (name === 'sim') continue;
      // Nothing outside the demo profile needs the simulator, or names its address.
      expect(JSON.stringify(s.command ?? [])).not.toMatch(/sim:8080|--base-url|--api-key/);
      const dep = s.depends_on?.sim;
      if (dep && notDemoOnly) expect(dep.required, `${name} depends on sim`).toBe(false);
    }
    for (const name of ['worker-1', 'worker-2', 'sync']) {
      const env = services[name]!.environment!;
      expect(env.FRAGSYNC_BASE_URL).toMatch(/^\$\{FRAGSYNC_BASE_URL:\?.+\}$/);
      expect(env.FRAGSYNC_API_KEY).toMatch(/^\$\{FRAGSYNC_API_KEY:\?.+\}$/);
    }
    // No secret in the file: only interpolations.
    expect(text).not.toMatch(/FRAGSYNC_API_KEY:\s*['"]?[A-Za-z0-9-]+['"]?\s*$/m);
    // Every variable the file reads is in .env.example, and the key there is empty.
    const used = new Set([...text.matchAll(/\$\{(\w+)/g)].map((m) => m[1]!));
    for (const v of used) expect(envExample, v).toMatch(new RegExp(`^${v}=`, 'm'));
    expect(envExample).toMatch(/^FRAGSYNC_API_KEY=$/m);
  });

  it('healthchecks for Redis and the workers; the workers wait for a healthy Redis', () => {
    expect(services.redis?.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    for (const name of ['worker-1', 'worker-2']) {
      const w = services[name]!;
      expect(cliArgs(w.healthcheck!.test).slice(0, 3)).toEqual([
        'health',
        '--heartbeat',
        '/tmp/fragsync-worker.alive',
      ]);
      // The file the healthcheck reads is the one the worker renews.
      expect(cliArgs(w.command!)).toEqual(['worker', '--heartbeat', '/tmp/fragsync-worker.alive']);
      expect(w.depends_on?.redis?.condition).toBe('service_healthy');
    }
  });

  it('a recreated worker adopts its predecessor’s spool: a stable hostname each, a named volume at the spool folder', () => {
    const workers = Object.entries(services).filter(([, s]) => cliArgs(s.command ?? [])[0] === 'worker');
    expect(workers.map(([n]) => n).sort()).toEqual(['worker-1', 'worker-2']);
    const hostnames = workers.map(([, s]) => s.hostname);
    expect(new Set(hostnames).size).toBe(workers.length);
    // Replicas would share one hostname: two live workers would take each other's spools for dead.
    for (const [name, s] of ours) expect(s.deploy?.replicas ?? 1, name).toBe(1);
    for (const name of ['worker-1', 'worker-2', 'sync']) {
      const s = services[name]!;
      expect(s.hostname, name).toMatch(/^fragsync-/);
      const dir = s.environment!.FRAGSYNC_SPOOL_DIR!;
      expect(s.volumes, name).toContain(`spool:${dir}`);
    }
    expect(Object.keys(compose.volumes)).toContain('spool');
  });

  it('the dashboard is a service, published on loopback only, reading the warehouse read-only', () => {
    const d = services.dashboard!;
    expect(cliArgs(d.command!)[0]).toBe('dashboard');
    expect(d.ports).toEqual(['127.0.0.1:8700:8700']);
    expect(d.volumes).toEqual(['./data:/app/data:ro']);
    expect(d.environment?.FRAGSYNC_API_KEY).toBeUndefined();
  });
});
