// The inspector (issue 17): one page over the tenant's /v1 and /_mock API. The key comes from the
// URL fragment (#key=..., which no server sees) or a form, and is kept in sessionStorage. Views
// are chosen by the fragment: #workload=ID (a run), #view=sweep&sweep=ID (a sweep's runs),
// #view=requests, #view=faults (fault and workload rules), else workloads.
// Everything long is read a page at a time: a run of 100,000 task events opens with one page.

import { CallError, createApi, REQUEST_ID_PREFIX, seg } from './api.js';
import { lineChart, passRates, timeline } from './charts.js';
import { append, badge, fmtDuration, fmtNumber, fmtPct, fmtTime, fmtUsd, h, isTerminal, replace, table } from './dom.js';

const KEY_STORAGE = 'nodus-mock-inspector-key';
const WORKLOADS_PER_PAGE = 20;
const EVIDENCE_PER_PAGE = 50;
/** Lifecycle events come 100 a page; a 50-step train run has about 80. */
const LIFECYCLE_PAGES_MAX = 50;
const STATUS_FILTERS = ['', 'active', 'terminal', 'accepted', 'planning', 'reserving', 'provisioning', 'running',
  'recovering', 'freezing', 'frozen', 'completed', 'cancelled', 'failed'];

const main = document.getElementById('main');
const clockBar = document.getElementById('clock');
const notice = document.getElementById('notice');
const tenantLabel = document.getElementById('tenant');
const snapshotButton = document.getElementById('snapshot');

let api;
let clock;

// ---- the key and the fragment

const fragment = () => new URLSearchParams(location.hash.slice(1));

/** Moves a key given in the fragment into sessionStorage and out of the address bar and history. */
function takeKeyFromFragment() {
  const params = fragment();
  const key = params.get('key');
  if (!key) return false;
  sessionStorage.setItem(KEY_STORAGE, key);
  params.delete('key');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  return true;
}

const go = (params) => {
  location.hash = new URLSearchParams(params).toString();
};

function askForKey(message) {
  tenantLabel.textContent = '';
  snapshotButton.hidden = true;
  replace(clockBar);
  const input = h('input', { name: 'key', type: 'password', placeholder: 'nk_test_…', autocomplete: 'off', size: 40, required: true });
  replace(main, h('form', {
    class: 'keyform',
    onsubmit: (event) => {
      event.preventDefault();
      sessionStorage.setItem(KEY_STORAGE, input.value.trim());
      void start();
    },
  },
  h('h2', {}, 'Tenant key'),
  h('p', {}, 'The inspector reads this tenant\'s workloads, journal and faults through the ordinary API with its key. ',
    'It stays in this tab (sessionStorage). A link can carry it in the fragment, which no server sees: ',
    h('code', {}, '/_mock/ui/#key=nk_test_…&workload=wl_…')),
  message && h('p', { class: 'error' }, message),
  input, ' ', h('button', { type: 'submit' }, 'Open')));
  main.dataset.state = 'key';
}

async function start() {
  const key = sessionStorage.getItem(KEY_STORAGE);
  if (!key) return askForKey();
  api = createApi(key);
  try {
    const me = await api.get('/v1/me');
    tenantLabel.textContent = `tenant ${me.tenant}`;
    // docs/snapshots.md: the file `nodus-mock --restore` opens.
    snapshotButton.onclick = (e) => download({ download: '/_mock/snapshot', name: `nodus-mock-snapshot-${me.tenant}.json` }, e.currentTarget);
    snapshotButton.hidden = false;
  } catch (err) {
    if (err instanceof CallError && err.status === 401) {
      sessionStorage.removeItem(KEY_STORAGE);
      return askForKey('This server does not accept that key.');
    }
    return showFailure(err);
  }
  await refreshClock();
  await render();
}

window.addEventListener('hashchange', () => {
  if (takeKeyFromFragment()) void start();
  else if (api) void render();
});

// ---- feedback and actions

function say(text, kind = 'ok') {
  replace(notice, h('div', { class: `notice ${kind}` }, text, ' ', h('button', { class: 'link', onclick: () => replace(notice) }, 'dismiss')));
}

function showFailure(err) {
  main.dataset.state = 'error';
  replace(main, h('div', { class: 'error-box' }, h('h2', {}, 'Could not load this view'), h('p', {}, String(err.message ?? err))));
}

/** Runs one lever, says what came of it, then reads the clock and the current view again. */
async function act(what, call, button) {
  if (button) button.disabled = true;
  try {
    await call();
    say(what);
  } catch (err) {
    say(`${what}: failed — ${err.message}`, 'error');
  } finally {
    if (button) button.disabled = false;
  }
  await refreshClock();
  await render();
}

// ---- the clock

async function refreshClock() {
  try {
    clock = await api.get('/_mock/clock');
  } catch (err) {
    replace(clockBar, h('span', { class: 'error' }, `clock: ${err.message}`));
    return;
  }
  const seconds = h('input', { type: 'number', min: 1, step: 1, value: 300, class: 'seconds', 'aria-label': 'seconds to advance' });
  const advance = (label, secs) => (event) => act(`advanced the clock ${label}`, () => api.post('/_mock/clock/advance', { seconds: secs() }), event.currentTarget);
  replace(clockBar,
    h('span', { class: 'clock-now', id: 'clock-now', title: 'virtual time (UTC)' }, fmtTime(clock.now)),
    h('span', { class: 'clock-mode', id: 'clock-mode' }, clock.mode === 'realtime' ? `realtime ×${clock.scale}` : 'manual'),
    [['+1m', 60], ['+10m', 600], ['+1h', 3600], ['+1d', 86400]].map(([label, n]) =>
      h('button', { class: 'advance', 'data-seconds': n, onclick: advance(label, () => n) }, label)),
    seconds,
    h('button', { class: 'advance', id: 'advance-by', onclick: advance('by the seconds given', () => Number(seconds.value)) }, 'advance'),
    h('button', {
      id: 'clock-toggle',
      onclick: (event) => act(`switched the clock to ${clock.mode === 'manual' ? 'realtime' : 'manual'}`,
        () => api.put('/_mock/clock', { mode: clock.mode === 'manual' ? 'realtime' : 'manual' }), event.currentTarget),
    }, clock.mode === 'manual' ? 'run realtime' : 'stop (manual)'),
    h('button', { id: 'refresh', onclick: () => refreshClock().then(render) }, 'refresh'));
}

// ---- views

let renderSeq = 0;

async function render() {
  const seq = ++renderSeq;
  const params = fragment();
  const view = params.get('workload') ? 'run' : (params.get('view') ?? 'workloads');
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.dataset.view === view);
  main.dataset.state = 'loading';
  const target = h('div', { class: `view view-${view}` });
  // A view may show itself before all of its parts have arrived; a newer render (the fragment
  // changed meanwhile) wins.
  const show = () => {
    if (seq !== renderSeq || target.isConnected) return;
    replace(main, target);
    main.dataset.view = view;
  };
  try {
    await (VIEWS[view] ?? workloadsView)(target, params, show);
  } catch (err) {
    if (seq === renderSeq) showFailure(err);
    return;
  }
  if (seq !== renderSeq) return;
  show();
  main.dataset.state = 'ready';
}

/** A promise's outcome as a value, so one failing section never blanks the page. */
const settle = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));

const section = (title, id, ...body) => h('section', { id }, h('h2', {}, title), body);
const failed = (result) => h('p', { class: 'muted' }, result.error.status === 404 ? 'none' : `could not read: ${result.error.message}`);

// ---- workloads

/** Where a workload came from: its recipe, else its RL environment, else its image. */
function origin(w) {
  const rl = w?.payload?.rl;
  if (rl?.recipe) return `${rl.recipe.id}@${rl.recipe.version}`;
  if (rl?.environment_id) return rl.environment_id;
  return w?.payload?.source?.image ?? '—';
}

/**
 * The Idempotency-Key each workload was admitted under, from the journal while it still holds
 * the launch: a recipe run's admission carries its review token; any other keyed admission is
 * matched by the virtual time it arrived at. Replays are the later requests with that key.
 */
function admissionKeys(rows, workloads) {
  const keyed = rows.filter((r) => r.idempotency_key && (r.status === null || (r.status >= 200 && r.status < 300)));
  const firsts = keyed.filter((r) => !r.replayed);
  const claimed = new Set();
  const found = new Map();
  for (const w of workloads) {
    const created = Date.parse(w.created_at);
    const token = w.payload?.rl?.recipe?.review_token;
    let best;
    for (const r of firsts) {
      if (claimed.has(r.id)) continue;
      if (token ? r.body?.review_token !== token : r.path === '/v1/rl-runs') continue;
      const distance = Math.abs(Date.parse(r.at) - created);
      if (distance <= (token ? 60_000 : 5_000) && (!best || distance < best.distance)) best = { r, distance };
    }
    if (!best) continue;
    claimed.add(best.r.id);
    const replays = keyed.filter((r) => r.replayed && r.path === best.r.path && r.idempotency_key === best.r.idempotency_key).length;
    found.set(w.id, { key: best.r.idempotency_key, replays, unanswered: best.r.status === null });
  }
  return found;
}

async function workloadsView(root, params) {
  const status = params.get('status') ?? '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const query = new URLSearchParams({ limit: WORKLOADS_PER_PAGE, offset });
  if (status) query.set('status', status);
  const [list, journal] = await Promise.all([
    api.get(`/v1/workloads?${query}`),
    settle(api.get('/_mock/requests?method=POST&kind=api&limit=1000')),
  ]);
  // The list has no payload: one detail read per row of this page says recipe and mode.
  const details = await Promise.all(list.workloads.map((w) => api.get(`/v1/workloads/${seg(w.id)}`).catch(() => null)));
  const keys = admissionKeys(journal.value?.requests ?? [], details.filter(Boolean));

  const filter = h('select', { id: 'status-filter', onchange: (e) => go({ view: 'workloads', ...(e.target.value && { status: e.target.value }) }) },
    STATUS_FILTERS.map((f) => h('option', { value: f, selected: f === status }, f || 'all statuses')));
  const rows = list.workloads.map((w, i) => {
    const d = details[i];
    const k = keys.get(w.id);
    const ended = isTerminal(w.status) ? w.updated_at : null;
    return h('tr', { class: 'workload-row', 'data-id': w.id },
      h('td', {}, h('a', { href: `#workload=${encodeURIComponent(w.id)}`, class: 'mono' }, w.id), w.name ? h('div', { class: 'muted small' }, w.name) : null,
        d?.payload?.sweep_id ? h('div', { class: 'small' }, 'sweep ', sweepLink(d.payload.sweep_id)) : null,
        d?.payload?.connections?.length > 0 ? h('div', { class: 'muted small' }, `connection ${d.payload.connections[0]}`) : null),
      h('td', {}, badge(w.status)),
      h('td', {}, origin(d)),
      h('td', {}, d?.payload?.rl?.mode ?? '—'),
      h('td', { class: 'nowrap' }, fmtTime(w.created_at)),
      h('td', { class: 'nowrap' }, ended ? fmtTime(ended) : '—'),
      h('td', { class: 'num' }, fmtUsd(w.spend_usd)),
      h('td', { class: 'mono' }, k?.key ?? '—'),
      h('td', {}, k ? [k.replays ? `replayed ×${k.replays}` : 'no', k.unanswered ? h('div', { class: 'muted small' }, 'first answer lost') : null] : '—'));
  });
  const pager = h('div', { class: 'pager' },
    offset > 0 && h('button', { onclick: () => go({ view: 'workloads', ...(status && { status }), offset: Math.max(0, offset - WORKLOADS_PER_PAGE) }) }, '← newer'),
    list.next_offset !== undefined && h('button', { onclick: () => go({ view: 'workloads', ...(status && { status }), offset: list.next_offset }) }, 'older →'));
  append(root, 
    h('div', { class: 'toolbar' }, h('h1', {}, 'Workloads'), h('label', {}, 'status ', filter)),
    list.workloads.length === 0
      ? h('p', { class: 'muted', id: 'no-workloads' }, status ? `No ${status} workloads.` : 'No workloads yet: launch one through /v1.')
      : table(['workload', 'status', 'recipe / environment', 'mode', 'created', 'ended', 'spend', 'idempotency key', 'replayed'], rows, { id: 'workloads' }),
    pager,
    journal.error ? h('p', { class: 'muted small' }, `idempotency keys unknown: ${journal.error.message}`) : null);
}

// ---- one run

async function lifecycleEvents(id) {
  const events = [];
  let after = 0;
  for (let i = 0; i < LIFECYCLE_PAGES_MAX; i++) {
    const page = await api.get(`/v1/workloads/${seg(id)}/events?after=${after}`);
    events.push(...page.events);
    // A page holds at most 100: a shorter one is the last for now.
    if (page.events.length < 100) return { events, complete: true };
    after = page.events.at(-1).id;
  }
  return { events, complete: false };
}

/** `made` maps a lifecycle event's id to the workload rule whose intervention made it (ruleMadeEvents). */
function timelineSection(w, lifecycle, made) {
  if (lifecycle.error) return section('Lifecycle', 'lifecycle', failed(lifecycle));
  const { events, complete } = lifecycle.value;
  const start = Date.parse(w.created_at);
  const statusEvents = events.filter((e) => e.event_type === 'workload.status');
  const endMs = isTerminal(w.status) ? Date.parse(w.updated_at) : Math.max(Date.parse(clock?.now ?? w.updated_at), Date.parse(w.updated_at));
  const segments = statusEvents.map((e, i) => ({
    status: e.payload?.status ?? '?',
    rule: made.get(e.id),
    from: Date.parse(e.created_at),
    to: i + 1 < statusEvents.length ? Date.parse(statusEvents[i + 1].created_at) : endMs,
  }));
  const markers = [];
  for (const e of events) {
    const at = Date.parse(e.created_at);
    if (e.event_type === 'workload.recovered') {
      const rule = made.get(e.id);
      markers.push({ at, kind: 'recovered', rule, label: `generation ${e.payload?.generation}${rule ? ` · ${rule}` : ''}` });
    } else if (e.event_type === 'rl.phase_started') markers.push({ at, kind: 'phase', label: e.payload?.phase });
    else if (e.event_type === 'rl.export_started') markers.push({ at, kind: 'phase', label: 'export' });
    else if (e.event_type === 'rl.training_step') markers.push({ at, kind: 'step' });
  }
  const rows = events.map((e) => h('tr', { 'data-id': e.id, 'data-rule': made.get(e.id) },
    [String(e.id), fmtTime(e.created_at), `+${fmtDuration((Date.parse(e.created_at) - start) / 1000)}`].map((c) => h('td', {}, c)),
    h('td', {}, e.event_type, made.has(e.id) ? [' ', h('span', { class: 'tag rule' }, `rule ${made.get(e.id)}`)] : null),
    h('td', {}, h('code', { class: 'small' }, JSON.stringify(e.payload ?? {})))));
  return section('Lifecycle', 'lifecycle',
    timeline({ start, end: endMs, segments, markers }),
    h('details', {}, h('summary', {}, `${events.length} lifecycle events${complete ? '' : ' (the first ones only)'}`),
      table(['id', 'at', 'since created', 'type', 'payload'], rows, { class: 'compact' })));
}

/** reward_mean, loss and kl per step; steps after a recovery belong to the new generation. */
function trainingSection(lifecycle) {
  if (lifecycle.error) return null;
  const steps = [];
  const breaks = [];
  let generation = 1;
  let recoveredPending = false;
  for (const e of lifecycle.value.events) {
    if (e.event_type === 'workload.recovered') {
      generation = e.payload?.generation ?? generation + 1;
      recoveredPending = true;
    } else if (e.event_type === 'rl.training_step') {
      if (recoveredPending && steps.length) breaks.push(e.payload.step);
      recoveredPending = false;
      steps.push({ ...e.payload, generation });
    }
  }
  if (steps.length === 0) return null;
  const total = steps.at(-1).total_steps;
  const chart = (metric, title) => lineChart({
    title, metric, breaks,
    points: steps.filter((st) => typeof st[metric] === 'number').map((st) => ({ x: st.step, y: st[metric], generation: st.generation })),
  });
  return section(`Training: ${steps.length}${total ? ` of ${total}` : ''} steps`, 'training',
    h('div', { class: 'charts' }, chart('reward_mean', 'reward_mean'), chart('loss', 'loss'), chart('kl', 'kl')));
}

function comparisonSection(summary) {
  if (summary.error) return section('Pass rates', 'comparison', failed(summary));
  const { phases, comparison, dropped_events: dropped, truncated } = summary.value;
  const phaseRows = Object.entries(phases ?? {}).map(([name, p]) => [name, String(p.attempts), String(p.scored), String(p.passed),
    String(p.failed), String(p.errors), String(p.in_progress), fmtPct(p.pass_rate), fmtNumber(p.mean_reward)]);
  const verdict = comparison
    ? h('div', { class: `verdict ${comparison.comparable ? 'comparable' : 'incomparable'}`, id: 'comparison-reason' },
      h('strong', {}, comparison.reason), ` change ${fmtNumber(comparison.change_pp, 3)} pp, resolution ${fmtNumber(comparison.resolution_pp, 3)} pp; `,
      `comparable: ${comparison.comparable}, measurable: ${comparison.measurable}`,
      comparison.message ? h('p', {}, comparison.message) : null)
    : h('p', { class: 'muted', id: 'comparison-reason' }, 'No comparison yet: baseline and evaluation both need a scored attempt.');
  return section('Pass rates', 'comparison',
    h('div', { class: 'split' },
      h('div', {}, passRates({ baseline: comparison?.baseline_pass_rate ?? phases?.baseline?.pass_rate, evaluation: comparison?.evaluation_pass_rate ?? phases?.evaluation?.pass_rate }), verdict),
      h('div', {}, table(['phase', 'attempts', 'scored', 'passed', 'failed', 'errors', 'in progress', 'pass rate', 'mean reward'], phaseRows, { class: 'compact' }),
        (dropped || truncated) ? h('p', { class: 'warn' }, `${dropped} events dropped${truncated ? ', evidence truncated' : ''}`) : null)));
}

/** Task evidence one page at a time, by cursor; earlier cursors are kept to go back. */
function evidenceSection(id, first) {
  const body = h('div', {});
  const cursors = [undefined];
  const show = (page) => {
    const at = cursors.length;
    const rows = page.events.map((r) => {
      const e = r.event ?? {};
      return h('tr', { class: r.generation > 1 ? 'later-generation' : '' },
        h('td', { class: 'num' }, r.id), h('td', { class: 'num' }, String(r.generation)), h('td', {}, r.stage_id),
        h('td', { class: 'nowrap' }, fmtTime(r.received_at)), h('td', {}, e.kind), h('td', {}, e.phase), h('td', { class: 'mono' }, e.task_id),
        h('td', { class: 'num' }, String(e.attempt ?? '')), h('td', {}, e.outcome ?? ''), h('td', { class: 'num' }, fmtNumber(e.reward)),
        h('td', { class: 'mono small' }, e.event_id));
    });
    const load = (cursor, direction) => async (event) => {
      event.currentTarget.disabled = true;
      try {
        const next = await evidencePage(id, cursor);
        if (direction === 'next') cursors.push(cursor);
        else if (direction === 'back') cursors.pop();
        show(next);
      } catch (err) {
        say(`task evidence: ${err.message}`, 'error');
      }
    };
    replace(body,
      h('p', { class: page.dropped_events || page.truncated ? 'warn' : 'muted', id: 'evidence-counters' },
        `page ${at} · dropped_events ${page.dropped_events} · truncated ${page.truncated}`),
      page.events.length ? table(['row', 'generation', 'stage', 'received', 'kind', 'phase', 'task', 'attempt', 'outcome', 'reward', 'event_id'], rows, { class: 'compact', id: 'evidence' })
        : h('p', { class: 'muted' }, 'No task events on this page.'),
      h('div', { class: 'pager' },
        at > 1 && h('button', { id: 'evidence-back', onclick: load(cursors[at - 2], 'back') }, '← previous'),
        page.has_more && h('button', { id: 'evidence-next', onclick: load(page.next_cursor, 'next') }, 'next →')));
  };
  if (first.error) replace(body, failed(first));
  else show(first.value);
  return section('Task evidence', 'task-evidence', body);
}

const evidencePage = (id, cursor) =>
  api.get(`/v1/workloads/${seg(id)}/rl-events?limit=${EVIDENCE_PER_PAGE}${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);

function gradingSection(w, grading) {
  const revision = w.revision ?? 1;
  if (grading.error) return section(`Grading receipts (revision ${revision})`, 'grading', failed(grading));
  const g = grading.value;
  const rows = g.receipts.map((r) => [h('td', { class: 'mono small' }, r.attempt_id), r.task_id, badge(r.state), fmtNumber(r.reward),
    r.infrastructure_code ?? '', String(r.cleanup_complete)]);
  return section(`Grading receipts (revision ${revision})`, 'grading',
    h('p', { class: 'muted small' }, `plan ${g.plan_sha256} · parent ${g.parent_status} · cleanup complete ${g.grading_cleanup_complete}`),
    rows.length ? table(['attempt', 'task', 'state', 'reward', 'infrastructure code', 'cleaned up'], rows, { class: 'compact' }) : h('p', { class: 'muted' }, 'No receipts yet.'));
}

async function download(output, button) {
  button.disabled = true;
  try {
    // The download needs the key, which a plain link cannot send: fetch it, then hand the bytes over.
    const { blob } = await api.blob(output.download);
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: output.name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (err) {
    say(`download ${output.name}: ${err.message}`, 'error');
  } finally {
    button.disabled = false;
  }
}

function outputsSection(outputs) {
  if (outputs.error) return section('Outputs', 'outputs', failed(outputs));
  const rows = outputs.value.outputs.map((o) => [o.name, o.stage_id, h('td', { class: 'num' }, String(o.bytes)), h('td', { class: 'mono small' }, o.sha256),
    h('button', { class: 'download', onclick: (e) => download(o, e.currentTarget) }, 'download')]);
  return section('Outputs', 'outputs', rows.length ? table(['name', 'stage', 'bytes', 'sha256', ''], rows, { class: 'compact' })
    : h('p', { class: 'muted' }, 'No outputs yet: they appear when a stage completes.'));
}

function logSection(id, first) {
  const pre = h('pre', { class: 'log', id: 'log' });
  const more = h('button', { id: 'log-more' }, 'more');
  let cursor;
  const append = (page) => {
    pre.append(page.chunks.map((c) => `${c.generation > 1 ? `[gen ${c.generation}] ` : ''}${c.text}`).join(''));
    cursor = page.next_cursor;
    more.textContent = page.chunks.length ? 'more' : 'nothing more yet: read again';
  };
  more.addEventListener('click', async () => {
    try {
      append(await api.get(`/v1/workloads/${seg(id)}/logs/live?after=${encodeURIComponent(cursor)}`));
    } catch (err) {
      say(`log: ${err.message}`, 'error');
    }
  });
  if (first.error) return section('Log', 'logs', failed(first));
  append(first.value);
  return section('Log', 'logs', first.value.truncated ? h('p', { class: 'warn' }, 'the log was truncated') : null, pre, more);
}

function leversSection(w) {
  const id = seg(w.id);
  const status = w.status;
  const ended = isTerminal(status);
  const replayLast = h('input', { type: 'number', min: 0, value: 5, class: 'seconds', id: 'replay-last', 'aria-label': 'events to replay' });
  const dropCount = h('input', { type: 'number', min: 1, value: 3, class: 'seconds', id: 'drop-count', 'aria-label': 'events to drop' });
  const lever = (label, attrs, call) => h('button', {
    ...attrs,
    onclick: (e) => act(`${label} ${w.id}`, call, e.currentTarget),
  }, label);
  return h('div', { class: 'levers', id: 'levers' },
    lever('cancel', { id: 'lever-cancel', disabled: ended }, () => api.post(`/v1/workloads/${id}/cancel`)),
    lever('freeze', { id: 'lever-freeze', disabled: ended || status === 'frozen' || status === 'freezing' }, () => api.post(`/v1/workloads/${id}/freeze`)),
    lever('resume', { id: 'lever-resume', disabled: status !== 'frozen' && status !== 'freezing' }, () => api.post(`/v1/workloads/${id}/resume`)),
    h('span', { class: 'group' },
      lever('recover', { id: 'lever-recover', disabled: status !== 'running' && status !== 'provisioning' },
        () => api.post(`/_mock/workloads/${id}/recover`, { replay_last: Number(replayLast.value) })),
      ' replaying ', replayLast),
    h('span', { class: 'group' },
      lever('drop events', { id: 'lever-drop' }, () => api.post(`/_mock/workloads/${id}/drop-events`, { count: Number(dropCount.value) })), ' ', dropCount),
    lever('fail', { id: 'lever-fail', disabled: ended }, () => api.post(`/_mock/workloads/${id}/fail`)));
}

async function runView(root, params, show) {
  const id = params.get('workload');
  const path = `/v1/workloads/${seg(id)}`;
  const w = await api.get(path);
  const lifecycle = settle(lifecycleEvents(id));
  const evidence = settle(evidencePage(id));
  const grading = settle(api.get(`${path}/rl-grading-results?revision=${w.revision ?? 1}`));
  const rules = settle(api.get('/_mock/workload-rules'));
  const ruled = Promise.all([lifecycle, rules]).then(([l, r]) => {
    const bindings = ruleBindings(r, id);
    return { lifecycle: l, bindings, made: ruleMadeEvents(l.value?.events ?? [], bindings) };
  });
  const outputs = settle(api.get(`${path}/outputs`));
  const logs = settle(api.get(`${path}/logs/live`));
  // The summary counts every task event: about a second of the server's time for 100,000. Asked
  // for last, it holds up only its own section, not the reads queued behind it.
  const summary = Promise.all([lifecycle, evidence, grading, outputs, logs, rules]).then(() => settle(api.get(`${path}/rl-summary`)));
  const parts = [];
  /** A section that fills in when its read is back, so the slowest read (the summary of a long run) holds up only itself. */
  const later = (read, build) => {
    const slot = h('section', { class: 'pending' }, h('p', { class: 'muted' }, 'loading…'));
    parts.push(read.then((result) => {
      const built = build(result);
      if (built) slot.replaceWith(built);
      else slot.remove();
    }));
    return slot;
  };
  const generation = h('span', {}, '…');
  parts.push(lifecycle.then((r) => {
    generation.textContent = String(r.value?.events.filter((e) => e.event_type === 'workload.recovered').at(-1)?.payload?.generation ?? 1);
  }));
  const stage = w.stages?.[0];
  append(root,
    h('div', { class: 'toolbar' },
      h('a', { href: '#view=workloads' }, '← workloads'),
      h('h1', { class: 'mono' }, w.id),
      h('span', { id: 'run-status' }, badge(w.status))),
    h('div', { class: 'facts' },
      fact('name', w.payload?.name ?? '—'), fact('recipe / environment', origin(w)), fact('mode', w.payload?.rl?.mode ?? '—'),
      w.payload?.connections?.length > 0 && fact('connection', h('span', { id: 'run-connection', class: 'mono' }, w.payload.connections[0])),
      w.payload?.sweep_id && fact('sweep', sweepLink(w.payload.sweep_id, { id: 'run-sweep' })),
      fact('generation', generation), fact('created', fmtTime(w.created_at)),
      fact(isTerminal(w.status) ? 'ended' : 'updated', fmtTime(w.updated_at)), fact('spend', fmtUsd(w.spend_usd)),
      stage && fact('stage', `${stage.id} ${stage.status}: ${stage.completed_units ?? 0}/${stage.total_units ?? '?'} units` +
        (stage.metric_total_steps ? `, step ${stage.metric_step ?? 0}/${stage.metric_total_steps}` : ''))),
    leversSection(w),
    later(ruled, (r) => timelineSection(w, r.lifecycle, r.made)),
    later(ruled, (r) => runRulesSection(r.bindings, r.lifecycle.value?.events ?? [], r.made)),
    later(lifecycle, (l) => trainingSection(l)),
    later(summary, comparisonSection),
    later(evidence, (first) => evidenceSection(id, first)),
    later(grading, (g) => gradingSection(w, g)),
    later(outputs, outputsSection),
    later(logs, (first) => logSection(id, first)));
  show();
  await Promise.all(parts);
}

const fact = (label, value) => h('div', { class: 'fact' }, h('span', { class: 'label' }, label), h('span', {}, value));

// ---- a sweep: the runs that share a sweep_id, as GET /v1/compute/groups/{id} pages them

const sweepLink = (sweepId, attrs = {}) => h('a', { ...attrs, href: `#view=sweep&sweep=${encodeURIComponent(sweepId)}`, class: 'mono sweep-link' }, sweepId);

async function sweepView(root, params) {
  const sweepId = params.get('sweep') ?? '';
  const cursor = params.get('cursor');
  const page = await api.get(`/v1/compute/groups/${seg(`sweep_${sweepId}`)}?limit=${WORKLOADS_PER_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  const { group } = page;
  const rows = page.items.map((item) => h('tr', { class: 'sweep-run', 'data-id': item.id },
    h('td', {}, h('a', { href: `#workload=${encodeURIComponent(item.id)}`, class: 'mono' }, item.id), item.name !== item.id ? h('div', { class: 'muted small' }, item.name) : null),
    h('td', {}, badge(item.status_text)),
    h('td', {}, item.gpu ? `${item.gpu_count}× ${item.gpu}` : '—'),
    h('td', { class: 'nowrap' }, fmtTime(item.created_at)),
    h('td', { class: 'nowrap' }, fmtTime(item.started_at)),
    h('td', { class: 'nowrap' }, fmtTime(item.ended_at))));
  append(root,
    h('div', { class: 'toolbar' }, h('a', { href: '#view=workloads' }, '← workloads'), h('h1', {}, 'Sweep ', h('span', { class: 'mono' }, group.sweep_id))),
    h('div', { class: 'facts', id: 'sweep-counts' },
      fact('runs', String(group.size)), fact('running', String(group.running)), fact('succeeded', String(group.succeeded)), fact('failed', String(group.failed))),
    table(['run', 'status', 'gpu', 'created', 'started', 'ended'], rows, { id: 'sweep-runs' }),
    h('div', { class: 'pager' },
      cursor && h('button', { onclick: () => go({ view: 'sweep', sweep: sweepId }) }, '← newest'),
      page.next_cursor && h('button', { onclick: () => go({ view: 'sweep', sweep: sweepId, cursor: page.next_cursor }) }, 'older →')));
}

// ---- the request journal

/** Keys in sorted order at every depth, so that two bodies compare by content. */
const canonical = (v) => (Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
    : JSON.stringify(v));

/** What a row means beyond its status: a replay, a fault, an answer lost, a key reused with another body. */
function notes(row, rows) {
  const out = [];
  if (row.replayed) out.push(h('span', { class: 'tag replayed' }, 'replayed'));
  if (row.fault) out.push(h('span', { class: 'tag fault', title: row.fault_id ?? '' }, `fault: ${row.fault}`));
  if (row.status === null) out.push(h('span', { class: 'tag lost' }, 'no answer'));
  if (row.status === 409 && row.idempotency_key) {
    const first = rows.find((r) => r.id < row.id && r.path === row.path && r.idempotency_key === row.idempotency_key && !r.replayed && r.status !== 409);
    if (first && canonical(first.body) !== canonical(row.body)) out.push(h('span', { class: 'tag conflict' }, 'conflict: other body'));
  }
  return out;
}

async function requestsView(root, params) {
  const path = params.get('path') ?? '';
  const method = params.get('method') ?? '';
  const kind = params.get('kind') ?? '';
  const own = params.get('own') === '1';
  const query = new URLSearchParams({ limit: 200 });
  if (path) query.set('path', path);
  if (method) query.set('method', method);
  if (kind) query.set('kind', kind);
  const { requests, evicted } = await api.get(`/_mock/requests?${query}`);
  const shown = own ? requests : requests.filter((r) => !r.request_id?.startsWith(REQUEST_ID_PREFIX));
  const hidden = requests.length - shown.length;

  const pathInput = h('input', { name: 'path', value: path, placeholder: '/v1/rl-runs or /v1/workloads/{id}', size: 32 });
  const methodSelect = h('select', { name: 'method' }, ['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => h('option', { value: m, selected: m === method }, m || 'any method')));
  const kindSelect = h('select', { name: 'kind' }, [['', '/v1 and /_mock'], ['api', '/v1 only'], ['control', '/_mock only']]
    .map(([k, label]) => h('option', { value: k, selected: k === kind }, label)));
  const ownBox = h('input', { type: 'checkbox', name: 'own', checked: own });
  const filters = h('form', {
    class: 'filters',
    onsubmit: (e) => {
      e.preventDefault();
      go({ view: 'requests', ...(pathInput.value && { path: pathInput.value }), ...(methodSelect.value && { method: methodSelect.value }),
        ...(kindSelect.value && { kind: kindSelect.value }), ...(ownBox.checked && { own: '1' }) });
    },
  }, pathInput, ' ', methodSelect, ' ', kindSelect, ' ', h('label', {}, ownBox, ' the inspector\'s own reads'), ' ', h('button', { type: 'submit' }, 'filter'));

  const rows = [];
  for (const r of shown) {
    const detail = h('tr', { class: 'detail', hidden: true },
      h('td', { colspan: 9 }, h('div', { class: 'small muted' }, `request ${r.request_id} · arrived ${r.at} (virtual) · ${r.wall_at} (wall)`),
        h('pre', { class: 'headers' }, Object.entries(r.headers ?? {}).map(([name, value]) => `${name}: ${value}`).join('\n') || '(no headers kept)'),
        h('pre', {}, r.body === null ? '(no body)' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2))));
    const q = new URLSearchParams(Object.entries(r.query ?? {}).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]))).toString();
    rows.push(h('tr', { class: 'request-row', 'data-id': r.id, onclick: () => { detail.hidden = !detail.hidden; } },
      h('td', { class: 'num' }, String(r.id)), h('td', { class: 'nowrap' }, fmtTime(r.at)), h('td', {}, r.method),
      h('td', { class: 'mono' }, r.path, q ? h('span', { class: 'muted' }, `?${q}`) : null),
      h('td', { class: `num status-${r.status === null ? 'none' : Math.floor(r.status / 100)}xx` }, r.status === null ? '—' : String(r.status)),
      h('td', { class: 'mono small' }, r.idempotency_key ?? ''), h('td', {}, r.kind === 'control' ? h('span', { class: 'tag control' }, 'control') : null, notes(r, requests)),
      h('td', { class: 'num' }, `${r.duration_ms} ms`), h('td', { class: 'num small' }, r.body_bytes ? `${r.body_bytes} B` : '')), detail);
  }
  append(root, 
    h('div', { class: 'toolbar' }, h('h1', {}, 'Requests'),
      h('button', { id: 'journal-clear', onclick: (e) => act('cleared the journal', () => api.del('/_mock/requests'), e.currentTarget) }, 'clear journal')),
    filters,
    h('p', { class: 'muted small', id: 'journal-note' }, `What this tenant's clients sent to /v1, and its own /_mock calls (control), newest first (the newest 200). `,
      evicted ? `${evicted} older requests were evicted (--journal-size). ` : '',
      hidden ? `${hidden} of the inspector's own reads hidden. ` : '', 'Click a row for its headers and body.'),
    shown.length ? table(['id', 'at', 'method', 'path', 'status', 'idempotency key', 'notes', 'took', 'body'], rows, { id: 'journal' })
      : h('p', { class: 'muted', id: 'journal-empty' }, 'No requests.'));
}

// ---- fault rules

function describeAction(a) {
  if (a.type === 'error') return `error ${a.status} ${a.error}${a.retry_after !== undefined ? `, Retry-After ${a.retry_after}` : ''}`;
  if (a.type === 'delay') return `delay ${a.ms} ms`;
  return a.type;
}

async function faultsView(root) {
  const [{ faults }, rules] = await Promise.all([api.get('/_mock/faults'), settle(api.get('/_mock/workload-rules'))]);
  const rows = faults.map((f) => h('tr', { class: 'fault-row', 'data-id': f.id },
    h('td', { class: 'mono small' }, f.id), h('td', {}, f.method ?? 'any'), h('td', { class: 'mono' }, f.path), h('td', {}, describeAction(f.action)),
    h('td', { class: 'num' }, String(f.after)), h('td', { class: 'num' }, String(f.times)), h('td', { class: 'num' }, String(f.remaining)),
    h('td', { class: 'num' }, String(f.seen ?? '')), h('td', { class: 'num' }, String(f.applied ?? '')), h('td', {}, f.source ?? ''),
    h('td', {}, h('button', { class: 'fault-delete', onclick: (e) => act(`removed fault ${f.id}`, () => api.del(`/_mock/faults/${seg(f.id)}`), e.currentTarget) }, 'remove'))));

  const field = (label, input) => h('label', { class: 'field' }, h('span', {}, label), input);
  const method = h('select', { name: 'method' }, ['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => h('option', { value: m }, m || 'any')));
  const path = h('input', { name: 'path', value: '/v1/rl-runs', required: true, size: 28 });
  const times = h('input', { name: 'times', type: 'number', min: 1, value: 1, class: 'seconds' });
  const after = h('input', { name: 'after', type: 'number', min: 0, value: 0, class: 'seconds' });
  const type = h('select', { name: 'type' }, ['error', 'delay', 'reset', 'drop_response'].map((t) => h('option', { value: t }, t)));
  const status = h('input', { name: 'status', type: 'number', min: 400, max: 599, value: 503, class: 'seconds' });
  const code = h('input', { name: 'error', value: 'service_unavailable', size: 22 });
  const message = h('input', { name: 'message', value: 'injected by the inspector', size: 28 });
  const retryAfter = h('input', { name: 'retry_after', type: 'number', min: 0, step: 'any', placeholder: 'none', class: 'seconds' });
  const ms = h('input', { name: 'ms', type: 'number', min: 0, max: 60000, value: 1500, class: 'seconds' });
  const errorFields = h('span', { class: 'action-fields' }, field('status', status), field('error', code), field('message', message), field('retry after (s)', retryAfter));
  const delayFields = h('span', { class: 'action-fields', hidden: true }, field('ms', ms));
  type.addEventListener('change', () => {
    errorFields.hidden = type.value !== 'error';
    delayFields.hidden = type.value !== 'delay';
  });
  const form = h('form', {
    id: 'fault-form',
    class: 'fault-form',
    onsubmit: (e) => {
      e.preventDefault();
      const action = { type: type.value };
      if (type.value === 'error') {
        Object.assign(action, { status: Number(status.value), error: code.value, message: message.value });
        if (retryAfter.value !== '') action.retry_after = Number(retryAfter.value);
      }
      if (type.value === 'delay') action.ms = Number(ms.value);
      const rule = { path: path.value, times: Number(times.value), after: Number(after.value), action };
      if (method.value) rule.method = method.value;
      void act(`added a fault rule on ${rule.path}`, () => api.post('/_mock/faults', rule), e.submitter);
    },
  }, field('method', method), field('path', path), field('after', after), field('times', times), field('action', type), errorFields, delayFields,
  h('button', { type: 'submit', id: 'fault-add' }, 'add rule'));

  append(root, 
    h('div', { class: 'toolbar' }, h('h1', {}, 'Fault rules'),
      faults.length > 0 && h('button', { id: 'faults-clear', onclick: (e) => act('removed every fault rule', () => api.del('/_mock/faults'), e.currentTarget) }, 'remove all')),
    h('p', { class: 'muted small' }, 'Rules act on this tenant\'s /v1 requests, the inspector\'s own reads included; oldest first, spent ones too.'),
    faults.length ? table(['id', 'method', 'path', 'action', 'after', 'times', 'remaining', 'seen', 'applied', 'source', ''], rows, { id: 'faults' })
      : h('p', { class: 'muted', id: 'no-faults' }, 'No fault rules.'),
    h('h2', {}, 'Add a rule'), form,
    workloadRulesSection(rules));
}

// ---- workload rules: interventions on runs not launched yet (POST /_mock/workload-rules)

/** A trigger as its fields read: `phase training step 3`, `reads 1`. */
const describeTrigger = (at) => Object.entries(at).map(([k, v]) => `${k} ${v}`).join(' ');

function describeRuleAction(action) {
  return [action].flat().map((a) => {
    if (a.type === 'recover') return `recover${a.replay_last ? `, replaying ${a.replay_last}` : ''}`;
    if (a.type === 'drop_events') return `drop ${a.count} event${a.count === 1 ? '' : 's'}`;
    if (a.type === 'fail') return `fail${a.reason ? `: ${a.reason}` : ''}`;
    return a.type;
  }).join(' + ');
}

const describeMatch = (match) => Object.entries(match ?? {}).map(([k, v]) => `${k} ${v}`).join(', ') || 'every workload';

const runLink = (id) => h('a', { href: `#workload=${encodeURIComponent(id)}`, class: 'mono' }, id);

/** What became of one run a rule bound: its state, when it settled, and what could not apply. */
const bindingOutcome = (b) => [badge(b.state), b.settled_at ? ` ${fmtTime(b.settled_at)}` : '', b.note ? h('div', { class: 'small warn' }, b.note) : null];

function workloadRulesSection(rules) {
  const list = rules.value?.rules ?? [];
  const rows = list.map((r) => h('tr', { class: 'workload-rule-row', 'data-id': r.id },
    h('td', { class: 'mono small' }, r.id), h('td', {}, describeMatch(r.match)), h('td', {}, describeTrigger(r.at)),
    h('td', {}, describeRuleAction(r.action)), h('td', {}, r.source), h('td', { class: 'nowrap' }, fmtTime(r.created_at)),
    ['matched', 'bound', 'pending', 'applied', 'skipped'].map((n) => h('td', { class: 'num' }, String(r[n]))),
    h('td', { class: 'bindings' },
      r.workloads.map((b) => h('div', { class: 'binding', 'data-workload': b.workload_id, 'data-state': b.state }, runLink(b.workload_id), ' ', bindingOutcome(b))),
      r.bound > r.workloads.length ? h('div', { class: 'muted small' }, `and ${r.bound - r.workloads.length} more`) : null),
    h('td', {}, h('button', { class: 'workload-rule-delete', onclick: (e) => act(`removed workload rule ${r.id}`, () => api.del(`/_mock/workload-rules/${seg(r.id)}`), e.currentTarget) }, 'remove'))));
  return h('div', { id: 'workload-rules-section', class: 'workload-rules' },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Workload rules'),
      list.length > 0 && h('button', { id: 'workload-rules-clear', onclick: (e) => act('removed every workload rule', () => api.del('/_mock/workload-rules'), e.currentTarget) }, 'remove all')),
    h('p', { class: 'muted small' }, 'Interventions on the runs they match, fixed into each when it is admitted and applied when the trigger comes; oldest first. ',
      'Add them with POST /_mock/workload-rules or a scenario file.'),
    rules.error ? failed(rules)
      : list.length ? table(['id', 'match', 'trigger', 'action', 'source', 'created', 'matched', 'bound', 'pending', 'applied', 'skipped', 'runs bound', ''], rows, { id: 'workload-rules' })
        : h('p', { class: 'muted', id: 'no-workload-rules' }, 'No workload rules.'));
}

/** The rules that bound this run, each with what became of it here. */
function ruleBindings(rules, workloadId) {
  return (rules.value?.rules ?? []).flatMap((rule) => rule.workloads.filter((b) => b.workload_id === workloadId).map((binding) => ({ rule, binding })));
}

/**
 * The lifecycle events a rule's intervention made, by event id. The server records the rule with
 * the intervention, but /v1 shows only what it did to the run; a rule's nth action takes effect n ms
 * after the binding's `settled_at`, so that moment and the kind of event the action makes name the
 * rule.
 */
function ruleMadeEvents(events, bindings) {
  const made = new Map();
  for (const { rule, binding } of bindings) {
    if (binding.state !== 'applied') continue;
    const actions = [rule.action].flat();
    const from = Date.parse(binding.settled_at);
    const types = new Set(actions.map((a) => a.type));
    for (const e of events) {
      const at = Date.parse(e.created_at);
      if (at <= from || at > from + actions.length) continue;
      const status = e.event_type === 'workload.status' ? e.payload?.status : undefined;
      if ((types.has('recover') && status === 'recovering') || (types.has('fail') && (status === 'failed' || e.event_type === 'workload.failed'))) made.set(e.id, rule.id);
    }
  }
  // A recovery's new generation comes a minute or so later: it is the same rule's.
  let recovering;
  for (const e of events) {
    if (e.event_type === 'workload.status' && e.payload?.status === 'recovering') recovering = made.get(e.id);
    else if (e.event_type === 'workload.recovered' && recovering) made.set(e.id, recovering);
  }
  return made;
}

function runRulesSection(bindings, events, made) {
  if (bindings.length === 0) return null;
  const rows = bindings.map(({ rule, binding }) => {
    const marks = events.filter((e) => made.get(e.id) === rule.id).map((e) => `${e.event_type}${e.payload?.status ? ` ${e.payload.status}` : ''}` +
      `${e.payload?.generation ? ` (generation ${e.payload.generation})` : ''}`);
    return h('tr', { class: 'run-rule', 'data-id': rule.id, 'data-state': binding.state },
      h('td', {}, h('a', { href: '#view=faults', class: 'mono small' }, rule.id)), h('td', {}, describeTrigger(rule.at)), h('td', {}, describeRuleAction(rule.action)),
      h('td', {}, bindingOutcome(binding)), h('td', { class: 'small' }, marks.join(', ') || '—'));
  });
  return section('Workload rules', 'run-rules', table(['rule', 'trigger', 'action', 'here', 'in the lifecycle'], rows, { class: 'compact' }));
}

const VIEWS = { workloads: workloadsView, run: runView, sweep: sweepView, requests: requestsView, faults: faultsView };

takeKeyFromFragment();
void start();
