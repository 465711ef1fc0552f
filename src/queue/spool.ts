import { randomUUID } from 'node:crypto';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ApiCallItem, SentCall } from '../domain/calls.ts';
import type { LoadEntry } from '../domain/items.ts';
import { ensureWritableDir } from '../util/writable-dir.ts';
import { readCalls, unansweredRows } from '../warehouse/sent-calls.ts';
import { RedisLossNotice } from './redis-loss.ts';
import { claimDeadSpools, openSpools, spoolToken } from './spool-file.ts';
import type { JobOutcome } from './types.ts';

export interface SpoolOptions {
  /** This queue prefix's spool folder (created if missing); shared by the processes of a host. */
  dir: string;
  redis: Redis;
  /** BullMQ key prefix: the load queue's job keys and this process's marker live under it. */
  prefix: string;
  /** Hands ledger rows to the owner of the warehouse (a load job); resolves with its job id. */
  report(runId: string, calls: ApiCallItem[]): Promise<string>;
  /** Hands a kept outcome to the owner again, as load job `jobId` (the id it had before). */
  resend(outcome: JobOutcome, jobId: string): Promise<void>;
  /** How often the open segment is sealed and segments whose reports were taken are dropped (ms). */
  rotateMs?: number;
  log: Logger;
  /** Says once per process that Redis lost its data (default: a notice of its own). */
  notice?: RedisLossNotice;
}

interface Segment {
  path: string;
  fd: number | null;
  /** Lines written since the segment was opened, beyond what it carried over. */
  fresh: number;
  /** Load jobs that carry rows of this segment (reported while it was open). */
  jobs: string[];
  /** The job outcomes among them, kept whole while they may be in Redis only (see reportAgain). */
  outcomes: { jobId: string; outcome: JobOutcome }[];
}

/** Seconds a marker outlives its last refresh: a dead process's marker goes by itself. */
const MARKER_TTL_S = 3600;

/**
 * The ledger's safety net in BullMQ mode. A fetch worker reports each job attempt's calls to
 * the owner of the warehouse through the load queue in Redis; a worker killed mid-job, or a
 * Redis that lost its data, would lose the rows of calls the service billed. So every fetch
 * worker writes to a local file each request as it goes onto the wire and each answer as it
 * arrives (one write(2) each, in the page cache before anything else happens), and keeps
 * them until the owner took the load job that carries them: the job's key is gone from Redis
 * while this process's marker key is still there (a Redis that lost its data loses both).
 *
 * What is not known to be taken is reported again: by this process when its marker vanished,
 * by the next process on the same folder when this one died (requests without an answer
 * become calls without one: status 0, the endpoint's price). The owner stores a ledger row
 * once per call id, so a row reported twice is one row.
 */
export class CallSpool {
  private readonly token = spoolToken(process.pid, randomUUID().slice(0, 8));
  private seq = 0;
  private current: Segment;
  private readonly sealed: Segment[] = [];
  /** Sent, not answered yet. */
  private readonly inFlight = new Map<string, { runId: string; call: SentCall }>();
  /** Answered, not yet in a load job that Redis accepted. */
  private readonly unreported = new Map<string, { runId: string; call: ApiCallItem }>();
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private ticks = 0;

  private readonly notice: RedisLossNotice;

  private constructor(private readonly opts: SpoolOptions) {
    this.notice = opts.notice ?? new RedisLossNotice(opts.log);
    this.current = this.openSegment();
  }

  static async open(opts: SpoolOptions): Promise<CallSpool> {
    ensureWritableDir(opts.dir, 'queue.spoolDir');
    const spool = new CallSpool(opts);
    openSpools.add(spool.token);
    await opts.redis.set(spool.marker, '1', 'EX', MARKER_TTL_S);
    await spool.adopt();
    // A tick while a check still runs (a slow Redis) is skipped, not queued.
    spool.timer = setInterval(() => {
      if (!spool.checking) void spool.check().catch(() => undefined);
    }, opts.rotateMs ?? 1000);
    spool.timer.unref();
    return spool;
  }

  private get marker(): string {
    return `${this.opts.prefix}:fragsync:spool:${this.token}`;
  }

  /** A request of `runId` went onto the wire (called before its bytes are written). */
  sent(runId: string, call: SentCall): void {
    this.inFlight.set(call.callId, { runId, call });
    this.write(sentLine(runId, call));
  }

  /** Its answer (or its failure) arrived: the ledger row the job's report will carry. */
  answered(runId: string, call: ApiCallItem): void {
    if (call.callId === undefined) return;
    this.inFlight.delete(call.callId);
    this.unreported.set(call.callId, { runId, call });
    this.write(answerLine(runId, call));
  }

  /**
   * Redis accepted load job `jobId` carrying `outcome` (its calls): both are kept until it is
   * taken. Only the rows are on disk: a dead process's jobs are fetched again anyway.
   */
  reported(outcome: JobOutcome, jobId: string): void {
    for (const c of outcome.calls) if (c.callId !== undefined) this.unreported.delete(c.callId);
    // Every row of an unreported call is in the open segment (written there, or carried over
    // when it opened), so this segment is the one to keep until the job is taken.
    this.current.jobs.push(jobId);
    this.current.outcomes.push({ jobId, outcome });
  }

  /**
   * Seal the open segment, drop the segments whose load jobs were all taken, and if Redis
   * lost this process's marker, report everything kept again. Runs every `rotateMs`; every
   * tenth time (or with `adopt`) it also takes over the spools of dead processes.
   */
  async check(adopt = false): Promise<void> {
    while (this.checking) await this.checking;
    this.checking = this.checkOnce(adopt).finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async checkOnce(adopt: boolean): Promise<void> {
    if (this.current.fresh > 0 || this.current.jobs.length > 0) this.rotate();
    const multi = this.opts.redis.multi().exists(this.marker);
    for (const s of this.sealed)
      if (s.jobs.length > 0) multi.exists(...s.jobs.map((j) => `${this.opts.prefix}:load:${j}`));
    multi.expire(this.marker, MARKER_TTL_S);
    const replies = (await multi.exec()) ?? [];
    if (replies.length === 0 || replies.some(([err]) => err)) return; // no answer is not "taken"
    const count = (i: number) => Number(replies[i]?.[1]);
    if (count(0) === 0) {
      await this.reportAgain();
      if (adopt) await this.adopt();
      return;
    }
    let i = 1;
    for (const s of [...this.sealed]) {
      const left = s.jobs.length > 0 ? count(i++) : 0;
      if (left === 0) this.drop(s);
    }
    if (++this.ticks % 10 === 0 || adopt) await this.adopt();
  }

  /**
   * Redis lost its data, and with it every report not yet taken. Report all rows still kept
   * (those of calls whose job has not reported yet go with that job), in a fresh segment:
   * the job outcomes kept go again whole, under their first load job id (the owner handles
   * an id once: one it took already counts for its ledger rows only), so a job whose results
   * were waiting in Redis is not fetched again; the other rows go as ledger rows.
   */
  private async reportAgain(): Promise<void> {
    await this.opts.redis.set(this.marker, '1', 'EX', MARKER_TTL_S);
    const old = [...this.sealed, this.current];
    const { answered } = readCalls(old.map((s) => s.path));
    for (const id of this.unreported.keys()) answered.delete(id);
    const outcomes = old.flatMap((s) => s.outcomes);
    this.sealed.length = 0;
    for (const s of old) this.closeSegment(s);
    this.startSegment();
    for (const { runId, call } of answered.values()) this.write(answerLine(runId, call), false);
    // The rows are in the new segment now; the old ones can go.
    for (const s of old) rmSync(s.path, { force: true });
    for (const { outcome } of outcomes)
      for (const c of outcome.calls) if (c.callId !== undefined) answered.delete(c.callId);
    for (const kept of outcomes) {
      this.current.jobs.push(kept.jobId);
      this.current.outcomes.push(kept);
    }
    try {
      for (const { jobId, outcome } of outcomes) await this.opts.resend(outcome, jobId);
    } catch (err) {
      // Kept in the open segment: without the marker, the next check sends them again.
      await this.opts.redis.del(this.marker).catch(() => undefined);
      throw err;
    }
    const rows = [...answered.values()];
    await this.send(rows);
    this.notice.lost({ calls: rows.length, outcomes: outcomes.length }, 'reports sent again');
  }

  /**
   * Spools of processes that died on this host (their pid is gone): claimed by renaming (one
   * taker), their rows reported as this process's own.
   */
  private async adopt(): Promise<void> {
    const dead = claimDeadSpools(this.opts.dir, this.token);
    if (dead.owners === 0) return;
    const paths = dead.paths;
    const seen = readCalls(paths);
    const rows = [...seen.answered.values(), ...unansweredRows(seen)];
    for (const { runId, call } of rows) this.write(answerLine(runId, call), false);
    for (const p of paths) rmSync(p, { force: true });
    await this.send(rows);
    this.opts.log.info({ spools: dead.owners, calls: rows.length }, "reported a dead worker's calls");
  }

  /** Report rows already written to the open segment, one load job per run. */
  private async send(rows: readonly { runId: string; call: ApiCallItem }[]): Promise<void> {
    const byRun = new Map<string, ApiCallItem[]>();
    for (const { runId, call } of rows) {
      const calls = byRun.get(runId);
      if (calls) calls.push(call);
      else byRun.set(runId, [call]);
    }
    try {
      for (const [runId, calls] of byRun) this.current.jobs.push(await this.opts.report(runId, calls));
    } catch (err) {
      // The rows are kept (they are in the open segment); without the marker, the next check
      // reports everything kept again.
      await this.opts.redis.del(this.marker).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Wait until every report is taken, for at most `timeoutMs`, then stop. What is still kept
   * stays on disk for the next process on this folder.
   */
  async close(timeoutMs = 5000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    openSpools.delete(this.token);
    const deadline = Date.now() + timeoutMs;
    await this.check().catch(() => undefined);
    while (this.sealed.length > 0 && this.inFlight.size === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      await this.check().catch(() => undefined);
    }
    this.closeSegment(this.current);
    if (this.sealed.length === 0 && this.inFlight.size === 0 && this.unreported.size === 0)
      rmSync(this.current.path, { force: true });
  }

  private write(line: LoadEntry, fresh = true): void {
    this.current.fd ??= openSync(this.current.path, 'a');
    writeSync(this.current.fd, `${JSON.stringify(line)}\n`);
    if (fresh) this.current.fresh++;
  }

  private openSegment(): Segment {
    const path = join(this.opts.dir, `${this.token}-${++this.seq}.jsonl`);
    return { path, fd: null, fresh: 0, jobs: [], outcomes: [] };
  }

  private closeSegment(s: Segment): void {
    if (s.fd !== null) closeSync(s.fd);
    s.fd = null;
  }

  /** The open segment is sealed and kept until its reports are taken. */
  private rotate(): void {
    this.closeSegment(this.current);
    this.sealed.push(this.current);
    this.startSegment();
  }

  /** A new open segment, starting with what is still owed a report: older ones may go. */
  private startSegment(): void {
    this.current = this.openSegment();
    for (const { runId, call } of this.inFlight.values()) this.write(sentLine(runId, call), false);
    for (const { runId, call } of this.unreported.values()) this.write(answerLine(runId, call), false);
  }

  private drop(s: Segment): void {
    this.sealed.splice(this.sealed.indexOf(s), 1);
    rmSync(s.path, { force: true });
  }
}

/** Spool lines are journal lines (LoadEntry), read by the same code (warehouse/sent-calls.ts). */
function sentLine(runId: string, call: SentCall): LoadEntry {
  return { runId, items: [], progress: [], sent: [call] };
}

function answerLine(runId: string, call: ApiCallItem): LoadEntry {
  return { runId, items: [call], progress: [] };
}
