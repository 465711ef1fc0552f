import type { Overview } from './overview.ts';
import type { Grid } from './warehouse-figures.ts';

/**
 * The dashboard's own page: one server-rendered HTML document (no script, no external
 * asset), refreshed by the browser every 10 seconds. Every figure carries its raw value in
 * a data-figure/data-value pair, for tests and for anyone scraping it.
 */

const REFRESH_S = 10;

function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const num = (n: number) => n.toLocaleString('en-US');

function figure(name: string, value: number | string | null, text?: string): string {
  const shown = text ?? (value === null ? 'unknown' : typeof value === 'number' ? num(value) : value);
  return `<span data-figure="${esc(name)}" data-value="${esc(value ?? '')}">${esc(shown)}</span>`;
}

function time(iso: string | null): string {
  return iso ? `${iso.slice(0, 19).replace('T', ' ')} UTC` : '—';
}

/** A share of a cap as a bar; no cap: none. */
function bar(used: number, cap: number | null): string {
  if (cap === null || cap <= 0) return '';
  const pct = Math.min(100, Math.round((used / cap) * 100));
  return `<div class="bar${pct >= 90 ? ' hot' : ''}"><div style="width:${pct}%"></div></div>`;
}

function table(name: string, g: Grid, empty: string): string {
  if (g.rows.length === 0)
    return `<p class="empty" data-table="${esc(name)}" data-rows="0">${esc(empty)}</p>`;
  const head = g.columns.map((c) => `<th>${esc(c)}</th>`).join('');
  const body = g.rows
    .map(
      (r) =>
        `<tr>${r.map((v) => (v === null ? '<td class="null">NULL</td>' : `<td>${esc(typeof v === 'object' ? JSON.stringify(v) : v)}</td>`)).join('')}</tr>`,
    )
    .join('');
  return `<table data-table="${esc(name)}" data-rows="${g.rows.length}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** The "This run" card: Redis's run figures, or without them what a run is doing (headline.ts). */
function runCardHtml(o: Overview): string {
  const s = o.spend;
  const t = o.thisRun;
  const cap = `cap ${figure('cap-run', s.maxCentsPerRun, s.maxCentsPerRun === null ? 'none' : `${num(s.maxCentsPerRun)} ¢`)}`;
  if (t.from === 'in-process')
    return `<div class="card"><h2>This run</h2>
    <p class="big">${figure('run-state', 'in-process', 'Running')}</p>
    <p>sync run ${figure('run-id', t.runId)} in-process (pid ${esc(t.pid)} on ${esc(t.host)}), holding the warehouse</p>
    <p class="small">its live calls and cents are in its own progress line: they live in its process's memory, which the dashboard cannot read (no governor state in Redis) · ${cap}</p></div>`;
  if (t.from === 'warehouse')
    return `<div class="card"><h2>This run</h2>
    <p class="big">${figure('run-state', 'none', 'No run going on')}</p>
    <p>${t.last ? `last run ${figure('run-id', t.last.runId)} (${esc(t.last.status)}): ${figure('last-run-calls', t.last.calls)} calls, ${figure('last-run-cents', t.last.cents)} ¢` : 'no run recorded in this warehouse'}</p>
    <p class="small">read from the warehouse (no governor state in Redis) · ${cap}</p></div>`;
  return `<div class="card"><h2>This run</h2>
    <p class="big">${figure('cents-run', s.centsThisRun)} ¢</p>
    <p>${figure('calls-run', s.callsThisRun)} calls · ${cap}</p>
    ${bar(s.centsThisRun, s.maxCentsPerRun)}
    <p class="small">${o.run ? `${esc(o.run.runId)} on ${esc(o.run.baseUrl)}` : 'no run going on: the last one, caps from the dashboard’s config'}</p></div>`;
}

function cards(o: Overview): string {
  const q = o.quota;
  const s = o.spend;
  const paused = o.pausedUntil !== null;
  // Without governor state in Redis (syncs ran without it), read from the warehouse's ledger.
  const quotaFrom =
    q.from !== 'warehouse'
      ? ''
      : q.renewed
        ? `<p class="small">${figure('quota-source', q.from, 'read from the warehouse')}: ${figure('quota-renewed', 'renewed', 'renewed')} at the service's midnight since: reset at ${time(q.resetAt)}; last seen ${figure('quota-last-seen', q.lastSeen)} on the service's day ${esc(q.lastSeenDay)} (as of ${figure('quota-as-of', q.asOf, time(q.asOf))}); the ledger keeps no limit, so what is left now is not known here</p>`
        : `<p class="small">${figure('quota-source', q.from, 'read from the warehouse')}: the last the service answered, as of ${figure('quota-as-of', q.asOf, time(q.asOf))}; quota left may have changed since</p>`;
  const spendFrom =
    s.centsTodayFrom === 'warehouse'
      ? `<p class="small">${figure('cents-today-source', s.centsTodayFrom, 'read from the warehouse')}: its ledger, the service's day ${esc(s.day)} (no governor state in Redis)</p>`
      : '';
  return `<section class="cards">
  <div class="card"><h2>Quota left</h2>
    <p class="big">${figure('quota-remaining', q.remaining, q.renewed ? `renewed since ${time(q.resetAt)}` : undefined)}</p>
    <p>of ${figure('quota-limit', q.limit)} a day · reserve ${figure('quota-reserve', q.reserve)}</p>
    <p>resets ${figure('quota-reset', q.resetAt, time(q.resetAt))}</p>${quotaFrom}</div>
  <div class="card"><h2>Spent today (UTC)</h2>
    <p class="big">${figure('cents-today', s.centsToday)} ¢</p>${spendFrom}
    <p>cap ${figure('cap-day', s.maxCentsPerDay, s.maxCentsPerDay === null ? 'none' : `${num(s.maxCentsPerDay)} ¢`)}</p>
    ${bar(s.centsToday, s.maxCentsPerDay)}</div>
  ${runCardHtml(o)}
  <div class="card ${paused ? 'paused' : ''}"><h2>State</h2>
    <p class="big">${figure('state', paused ? 'paused' : 'running', paused ? 'Paused' : 'Not paused')}</p>
    <p>${paused ? `until ${figure('paused-until', o.pausedUntil, time(o.pausedUntil))}` : 'no quota pause in force'}</p>
    <p>${figure('in-flight', s.inFlight)} calls in flight</p></div>
</section>`;
}

function warehouseSection(o: Overview): string {
  const w = o.warehouse;
  const notice =
    w.state === 'ok'
      ? ''
      : `<p class="notice" data-warehouse-state="${w.state}">${esc(w.message ?? '')}${
          w.figures ? ` — showing what was read at ${esc(time(w.readAt))}` : ''
        }</p>`;
  const f = w.figures;
  if (!f) return `<section><h2>Warehouse</h2><p class="small">${esc(w.path)}</p>${notice}</section>`;
  return `<section><h2>Warehouse</h2><p class="small">${esc(w.path)} · read ${esc(time(w.readAt))}</p>${notice}
  <p>Ledger today (${esc(f.ledgerToday.day)}): ${figure('ledger-calls-today', f.ledgerToday.calls)} calls,
     ${figure('ledger-cents-today', f.ledgerToday.cents)} ¢</p>
  <h3>Last runs</h3>${table('runs', f.runs, 'no run yet')}
  <h3>Freshness per dataset</h3>${
    f.freshness
      ? table('freshness', f.freshness, 'nothing mirrored yet')
      : '<p class="empty" data-table="freshness" data-rows="">this warehouse has no freshness view (written by an older fragsync)</p>'
  }
  <h3>Quarantine, records not stored: ${figure('quarantine-total', f.quarantine.total)}</h3>
  ${table('quarantine-by-endpoint', f.quarantine.byEndpoint, 'nothing quarantined')}
  ${f.quarantine.total > 0 ? `<h4>Latest</h4>${table('quarantine-latest', f.quarantine.latest, '')}` : ''}
  <p>Failed jobs, to fetch again by the next sync: ${figure('failed-jobs', f.quarantine.failedJobs)}</p>
</section>`;
}

function queuesSection(o: Overview, boardPath: string): string {
  const rows = o.queues.map((q) => [q.name, q.waiting, q.active, q.delayed, q.failed, q.completed]);
  return `<section><h2>Queues <a href="${esc(boardPath)}">open bull-board →</a></h2>${table(
    'queues',
    { columns: ['queue', 'waiting', 'active', 'delayed', 'failed', 'completed'], rows },
    '',
  )}</section>`;
}

export function renderPage(o: Overview, opts: { boardPath: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${REFRESH_S}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fragsync · ${esc(o.queuePrefix)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header{background:#1d2330;color:#fff;padding:12px 24px;display:flex;gap:24px;align-items:baseline}
header h1{font-size:18px;margin:0}header a{color:#9cc4ff}main{padding:16px 24px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px}
.card,section{background:#fff;border-radius:6px;padding:12px 16px;margin-bottom:12px;box-shadow:0 1px 2px #0002}
.card h2,section h2{font-size:13px;text-transform:uppercase;color:#5b6475;margin:0 0 6px}
.big{font-size:28px;font-weight:600;margin:0}.small{color:#5b6475;font-size:12px}
.paused{border-left:4px solid #d97706}.notice{background:#fff4e5;border:1px solid #f0c36d;padding:8px;border-radius:4px}
.bar{height:6px;background:#e5e7eb;border-radius:3px}.bar div{height:6px;background:#3b82f6;border-radius:3px}.bar.hot div{background:#dc2626}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e5e7eb}
td.null{color:#9ca3af}.empty{color:#5b6475}
</style></head>
<body><header><h1>fragsync</h1><span>queue prefix ${esc(o.queuePrefix)}</span>
<span>read ${esc(time(o.at))} · refreshes every ${REFRESH_S} s · read-only</span>
<a href="${esc(opts.boardPath)}">queues (bull-board)</a></header>
<main>${cards(o)}${warehouseSection(o)}${queuesSection(o, opts.boardPath)}</main></body></html>`;
}
