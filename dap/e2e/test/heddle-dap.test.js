// End-to-end test of `heddle dap`: the adapter binary driven over stdin/stdout by
// @vscode/debugadapter-testsupport's DebugClient, as VS Code drives it, through one
// scenario on dap/testdata/bank's TestTransfer (two opposite transfers: a lock-order
// deadlock is possible):
//
//   breakpoint -> heddle/explore finds the deadlock -> heddle/replay -> three stepBacks
//   -> reverseContinue to an earlier breakpoint hit -> a hand-made heddle/scheduleNext
//   schedule that deadlocks where the default schedule does not -> no process left.
//
// HEDDLE_BIN names the heddle binary (run.sh builds it). Each step depends on the previous
// one, so the suite stops at the first failure.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  Adapter, BANK, BANK_GO, BANK_TEST_GO, alive, debuggees, descendants, gone, lineOf, log, ms,
} from './support.js';

const BIN = process.env.HEDDLE_BIN;

// The lines of Transfer (bank.go 13, 14, 15) and of TestTransfer's goroutines (bank_test.go
// 12, 13), found by their text.
const LOCK_FROM = lineOf(BANK_GO, 'from.mu.Lock()');
const DEFER_FROM = lineOf(BANK_GO, 'defer from.mu.Unlock()');
const LOCK_TO = lineOf(BANK_GO, 'to.mu.Lock()');
const GO_10 = lineOf(BANK_TEST_GO, 'go func() { defer wg.Done(); Transfer(a, b, 10) }()');
const GO_20 = lineOf(BANK_TEST_GO, 'go func() { defer wg.Done(); Transfer(b, a, 20) }()');

/** The launch configuration of TestTransfer. */
const launchArgs = {
  type: 'heddle',
  request: 'launch',
  name: 'TestTransfer',
  mode: 'test',
  program: BANK,
  args: ['-test.run', '^TestTransfer$'],
};

/** Timings measured along the way, printed at the end. */
const timings = {};

describe('heddle dap, driven by DebugClient', function () {
  this.bail(true);

  /** @type {Adapter[]} every adapter started, closed at the end */
  const adapters = [];
  /** The adapters' TMPDIR: the debuggees they build are run from under it. */
  let tmp;

  // State carried from step to step.
  /** @type {Adapter} */ let dc;
  let firstStop; // the stopped event at the breakpoint
  let bug; // the deadlock found by exploration
  let deadlockThread; // the thread the replayed deadlock stopped on
  let deadlockAmount; // `amount` of that thread at the deadlock

  async function newAdapter() {
    const a = new Adapter(BIN, tmp);
    adapters.push(a);
    await a.start();
    return a;
  }

  before(function () {
    assert.ok(BIN, 'HEDDLE_BIN must name the heddle binary (bash dap/e2e/run.sh sets it)');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-e2e-'));
    const others = debuggees();
    if (others.length > 0) log(`note: ${others.length} bank.test process(es) of something else are running; only this test's are checked`);
  });

  after(function () {
    for (const a of adapters) a.kill();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    console.log('\n  timings:');
    for (const [k, v] of Object.entries(timings)) console.log(`    ${k.padEnd(34)} ${v}`);
  });

  it(`1-2. launches TestTransfer and stops at the breakpoint at bank.go:${LOCK_TO}`, async function () {
    dc = await newAdapter();
    const t0 = performance.now();
    await dc.launch(launchArgs);
    await dc.breakpoints([LOCK_TO]);
    await dc.request('configurationDone');
    firstStop = await dc.stopped();
    timings['launch to first stop'] = ms(performance.now() - t0);
    log(`launch to first stop: ${timings['launch to first stop']}`);

    assert.equal(firstStop.reason, 'breakpoint', `stopped: ${JSON.stringify(firstStop)}`);
    const f = await dc.top(firstStop.threadId);
    assert.equal(f.source?.path, BANK_GO);
    assert.equal(f.line, LOCK_TO);
    assert.match(f.name, /Transfer/);
    const name = await dc.threadName(firstStop.threadId);
    assert.match(name, /^G1\.\d+$/, 'the breakpoint is hit by a transfer goroutine');
    const amount = await dc.evaluate(firstStop.threadId, 'amount');
    assert.ok(amount === '10' || amount === '20', `amount = ${amount}, want 10 or 20`);
    log(`stopped on ${name} at bank.go:${LOCK_TO}, amount = ${amount}`);
  });

  it('3. heddle/explore (dpor) reports the lock-order deadlock', async function () {
    const t0 = performance.now();
    const r = await dc.request('heddle/explore', { strategy: 'dpor', budget: '20s' });
    const id = r.body?.id;
    assert.ok(id !== undefined && id !== null, `heddle/explore answered ${JSON.stringify(r.body)}`);
    const found = await dc.event('heddle/bugFound',
      (e) => e.body?.bug?.kind === 'deadlock' && !!e.body.bug.schedule, 60000);
    const first = dc.bugs[0];
    timings['explore to first heddle/bugFound'] = ms(first.receivedAt - t0);
    log(`first heddle/bugFound after ${timings['explore to first heddle/bugFound']}: ${first.body.bug.kind}`);
    for (const e of dc.bugs) {
      assert.equal(e.body.id, id, 'heddle/bugFound carries the exploration id');
    }
    bug = found.body.bug;
    log(`deadlock ${bug.id}: ${bug.message} (schedule ${path.basename(bug.schedule)})`);
    assert.ok(fs.existsSync(bug.schedule), `the schedule file ${bug.schedule} exists`);
    assert.match(bug.replay ?? '', /heddle/, 'the bug has a replay command line');
    const atLock = (bug.goroutines ?? []).filter((g) => g.op === 'lock' && g.position?.file === BANK_GO && g.position?.line === LOCK_TO);
    assert.equal(atLock.length, 2, `deadlock goroutines: ${JSON.stringify(bug.goroutines)}`);

    const done = (await dc.event('heddle/exploreDone', undefined, 60000)).body;
    log(`heddle/exploreDone: ${JSON.stringify(done)}`);
    assert.equal(done.id, id);
    assert.ok(!done.error, `exploration failed: ${done.error}`);
    assert.ok(done.runs > 0, 'exploration ran schedules');
    assert.ok(done.bugs >= 1, 'exploration counts the bug');
  });

  it(`4. heddle/replay stops at the deadlock, each goroutine at its Lock (bank.go:${LOCK_TO})`, async function () {
    // The session is still stopped at the breakpoint of step 1.
    dc.assertNoQueued('stopped');
    const { stop, took } = await dc.resume('heddle/replay', { bug: bug.id });
    timings['replay to deadlock stop'] = ms(took);
    assert.equal(stop.reason, 'exception', `replay stopped: ${JSON.stringify(stop)}`);
    assert.match(stop.description ?? '', /deadlock/);
    deadlockThread = stop.threadId;

    const ths = await dc.threads();
    log(`threads: ${ths.map((t) => `${t.id}:${t.name}`).join(' | ')}`);
    const transfers = ths.filter((t) => t.name.startsWith('G1.'));
    assert.equal(transfers.length, 2, 'two transfer goroutines');
    for (const th of transfers) {
      const f = await dc.top(th.id);
      assert.equal(f.source?.path, BANK_GO, `${th.name}: top frame ${JSON.stringify(f)}`);
      assert.equal(f.line, LOCK_TO, `${th.name}: top frame line`);
      assert.match(th.name, new RegExp(`^G1\\.\\d+ bank\\.go:${LOCK_TO} Transfer$`), `${th.name}: named by id, place and function`);
      if (th.id === stop.threadId) continue;
      // The other goroutine's state came with the stop, as a stopped event of its thread.
      const state = dc.threadStates.findLast((s) => s.threadId === th.id);
      assert.equal(state?.reason, 'blocked', `${th.name}'s state at the deadlock: ${JSON.stringify(state)}`);
    }
    assert.ok(transfers.some((t) => t.id === deadlockThread),
      `the deadlock stopped on thread ${deadlockThread}, not a transfer goroutine`);
    deadlockAmount = await dc.evaluate(deadlockThread, 'amount');
    assert.ok(deadlockAmount === '10' || deadlockAmount === '20', `amount = ${deadlockAmount}`);
    log(`deadlock stop on ${await dc.threadName(deadlockThread)}, amount = ${deadlockAmount}`);
  });

  it(`5. steps back three times: bank.go:${DEFER_FROM}, bank.go:${LOCK_FROM}, then the goroutine in bank_test.go`, async function () {
    const wantCall = deadlockAmount === '10' ? GO_10 : GO_20;
    const steps = [
      { file: BANK_GO, line: DEFER_FROM, expr: 'amount', value: deadlockAmount },
      { file: BANK_GO, line: LOCK_FROM, expr: 'amount', value: deadlockAmount },
      // The goroutine's closure, at its first line: wg is there (a and b, copied from the
      // closure's context after this point, read nil here, as at a function breakpoint).
      // Neither transfer has called wg.Done yet.
      { file: BANK_TEST_GO, line: wantCall, expr: 'wg', value: 'sync.WaitGroup {counter 2}' },
    ];
    let thread = deadlockThread;
    for (const [i, want] of steps.entries()) {
      const { stop, took } = await dc.resume('stepBack', { threadId: thread });
      timings[`step back ${i + 1}`] = ms(took);
      const f = await dc.top(stop.threadId);
      log(`step back ${i + 1}: ${stop.reason} on thread ${stop.threadId} at ${path.basename(f.source?.path ?? '?')}:${f.line} (${f.name}) in ${ms(took)}`);
      assert.equal(stop.threadId, deadlockThread, 'step back stays on the goroutine');
      assert.equal(f.source?.path, want.file, `step back ${i + 1}: file`);
      assert.equal(f.line, want.line, `step back ${i + 1}: line`);
      const v = await dc.evaluate(stop.threadId, want.expr);
      assert.equal(v, want.value, `step back ${i + 1}: ${want.expr}`);
      thread = stop.threadId;
    }
  });

  it(`6. reverseContinue goes back to the earlier hit of the breakpoint at bank.go:${LOCK_FROM}`, async function () {
    await dc.breakpoints([LOCK_FROM]);
    const hits = [];
    let thread = deadlockThread;
    // Continue until both transfer goroutines have hit their first Lock.
    while (new Set(hits.map((h) => h.threadId)).size < 2) {
      assert.ok(hits.length < 4, `hits at line ${LOCK_FROM}: ${JSON.stringify(hits)}`);
      const { stop } = await dc.resume('continue', { threadId: thread });
      const f = await dc.top(stop.threadId);
      log(`continue: ${stop.reason} on thread ${stop.threadId} at ${path.basename(f.source?.path ?? '?')}:${f.line}`);
      assert.equal(stop.reason, 'breakpoint', `continue stopped: ${JSON.stringify(stop)}`);
      assert.equal(f.source?.path, BANK_GO);
      assert.equal(f.line, LOCK_FROM);
      hits.push({ threadId: stop.threadId, amount: await dc.evaluate(stop.threadId, 'amount') });
      thread = stop.threadId;
    }
    const last = hits[hits.length - 1];
    const earlier = hits[hits.length - 2];
    assert.notEqual(earlier.threadId, last.threadId);

    const { stop, took } = await dc.resume('reverseContinue', { threadId: last.threadId });
    timings['reverse continue'] = ms(took);
    const f = await dc.top(stop.threadId);
    log(`reverseContinue: ${stop.reason} on thread ${stop.threadId} at ${path.basename(f.source?.path ?? '?')}:${f.line} in ${ms(took)}`);
    assert.equal(stop.reason, 'breakpoint');
    assert.equal(stop.threadId, earlier.threadId, 'reverseContinue stops on the other goroutine');
    assert.equal(f.source?.path, BANK_GO);
    assert.equal(f.line, LOCK_FROM);
    assert.equal(await dc.evaluate(stop.threadId, 'amount'), earlier.amount);
    assert.notEqual(earlier.amount, last.amount, 'the two hits are the two transfers');
  });

  it('7. a hand-made heddle/scheduleNext schedule deadlocks; the default schedule does not', async function () {
    // The default schedule: the breakpoints after the first Lock are hit, then the test ends.
    const plain = await newAdapter();
    await plain.launch(launchArgs);
    await plain.breakpoints([DEFER_FROM]);
    await plain.request('configurationDone');
    let stop = await plain.stopped();
    const plainStops = [];
    for (;;) {
      assert.equal(stop.reason, 'breakpoint', `default schedule stopped: ${JSON.stringify(stop)}`);
      assert.equal((await plain.top(stop.threadId)).line, DEFER_FROM);
      plainStops.push(await plain.threadName(stop.threadId));
      assert.ok(plainStops.length <= 2, `default schedule stops: ${plainStops}`);
      await plain.request('continue', { threadId: stop.threadId });
      const e = await plain.eventAmong(['stopped', 'terminated']);
      assert.equal(e.event, 'stopped', 'the session stays at the end of the run');
      stop = e.body;
      if (stop.reason === 'end') break;
    }
    log(`default schedule: stops at line ${DEFER_FROM} on ${plainStops.join(', ')}, then at the end (${stop.description})`);
    assert.equal(plainStops.length, 2, 'each transfer stops once after its first Lock');
    plain.assertNoQueued('stopped');

    // The hand-made schedule: at the first stop, run the other transfer goroutine next.
    const hand = await newAdapter();
    await hand.launch(launchArgs);
    await hand.breakpoints([DEFER_FROM]);
    await hand.request('configurationDone');
    stop = await hand.stopped();
    assert.equal(stop.reason, 'breakpoint');
    assert.equal((await hand.top(stop.threadId)).line, DEFER_FROM);
    const stoppedOn = await hand.threadName(stop.threadId);
    const r = await hand.request('heddle/runnable');
    const runnable = r.body.goroutines;
    log(`stopped on ${stoppedOn}; runnable: ${JSON.stringify(runnable)}`);
    const other = runnable.map((g) => g.id).find((id) => id.startsWith('G1.') && id !== stoppedOn);
    assert.ok(other, `no other transfer goroutine among ${JSON.stringify(runnable)}`);
    assert.ok(runnable.some((g) => g.id === stoppedOn && g.current), `${stoppedOn} is the current goroutine`);

    ({ stop } = await hand.resume('heddle/scheduleNext', { goroutine: other }));
    assert.equal(stop.reason, 'step', `after scheduleNext: ${JSON.stringify(stop)}`);
    assert.equal(await hand.threadName(stop.threadId), other, 'stopped on the scheduled goroutine');

    let f = await hand.top(stop.threadId);
    log(`scheduleNext ${other}: ${stop.reason} on ${other} at bank.go:${f.line}`);
    assert.equal(f.source?.path, BANK_GO);
    assert.equal(f.line, LOCK_FROM, `${other} resumes at its first Lock`);

    // The other transfer takes its first lock and stops at the breakpoint, holding it ...
    ({ stop } = await hand.resume('continue', { threadId: stop.threadId }));
    assert.equal(stop.reason, 'breakpoint', `continue after scheduleNext: ${JSON.stringify(stop)}`);
    assert.equal(await hand.threadName(stop.threadId), other);
    f = await hand.top(stop.threadId);
    assert.equal(f.line, DEFER_FROM);
    // ... and each transfer now holds one lock: the run deadlocks.
    ({ stop } = await hand.resume('continue', { threadId: stop.threadId }));
    log(`hand-made schedule: ${stop.reason}: ${stop.description}`);
    assert.equal(stop.reason, 'exception', `the hand-made schedule stopped: ${JSON.stringify(stop)}`);
    assert.match(stop.description ?? '', /deadlock/);
  });

  it('disconnects and leaves no bank.test process behind', async function () {
    // Everything the adapters started: Delve processes (the heddle binary itself), and the
    // bank.test debuggees and exploration workers.
    const tree = descendants(adapters.map((a) => a.process?.pid).filter((pid) => pid));
    const ours = debuggees(tmp);
    log(`before disconnect: ${tree.length} processes under the adapters, ${ours.length} bank.test under ${tmp}`);
    assert.ok(ours.length > 0, `no bank.test process runs under ${tmp}: the check below would check nothing`);
    for (const a of adapters) {
      const t0 = performance.now();
      const code = await a.close();
      log(`adapter ${a.process?.pid ?? ''} exited (${code}) ${ms(performance.now() - t0)} after disconnect`);
      assert.equal(code, 0, 'the adapter exits with status 0 after disconnect');
    }
    const { left, waited } = await gone(() => [
      ...debuggees(tmp),
      ...tree.filter(alive).filter((p) => !debuggees(tmp).some((d) => d.pid === p.pid)),
    ]);
    timings['processes gone after disconnect'] = ms(waited);
    assert.deepEqual(left.map((p) => `${p.pid} ${p.state} ${p.cmd}`), [], 'processes left after disconnect');
    // And nothing else mentions bank.test from this test's TMPDIR.
    assert.deepEqual(debuggees(tmp), []);
    // Not asserted: Delve's output FIFOs (pkg/proc/redirector_other.go) may be left behind.
    const files = fs.readdirSync(tmp, { withFileTypes: true })
      .map((d) => `${d.name}${d.isFIFO() ? ' (fifo)' : d.isDirectory() ? '/' : ''}`);
    log(`left in TMPDIR: ${files.length ? files.join(', ') : 'nothing'}`);
  });
});
