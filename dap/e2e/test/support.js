// Helpers for driving `heddle dap` with @vscode/debugadapter-testsupport's DebugClient.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import testsupport from '@vscode/debugadapter-testsupport';

const { DebugClient } = testsupport;

const here = path.dirname(fileURLToPath(import.meta.url));

/** The repository's root: dap/e2e/test/../../.. */
export const REPO = path.resolve(here, '..', '..', '..');
/** The package under test: dap/testdata/bank. */
export const BANK = path.join(REPO, 'dap', 'testdata', 'bank');
export const BANK_GO = path.join(BANK, 'bank.go');
export const BANK_TEST_GO = path.join(BANK, 'bank_test.go');

/**
 * The 1-based number of the line of file whose text, trimmed, is text.
 * @param {string} file
 * @param {string} text
 */
export function lineOf(file, text) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.trim() === text);
  if (i < 0) throw new Error(`${path.basename(file)} has no line ${JSON.stringify(text)}`);
  return i + 1;
}

/** How long one request or one awaited event may take: builds take 5-20 s. */
export const TIMEOUT = 60000;

const VERBOSE = !!process.env.HEDDLE_E2E_VERBOSE;

/** Events that are queued so that none is lost between a request and the wait for it. */
const QUEUED = [
  'initialized', 'stopped', 'continued', 'terminated', 'exited',
  'heddle/bugFound', 'heddle/exploreDone', 'heddle/checkpoint',
];

/** Logs a line of the scenario, with the time since the process started. */
export function log(...args) {
  const t = (performance.now() / 1000).toFixed(1).padStart(6);
  console.log(`      [${t}s]`, ...args);
}

/** Formats a duration in milliseconds. */
export function ms(d) {
  return `${Math.round(d)} ms`;
}

/**
 * Rejects with a message naming what was awaited if p does not settle within timeout ms.
 * @template T
 * @param {Promise<T>} p
 * @param {string} what
 * @param {number} [timeout]
 * @returns {Promise<T>}
 */
export function within(p, what, timeout = TIMEOUT) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeout} ms`)), timeout);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/**
 * Adapter is one `heddle dap` process and a DebugClient talking to it over stdin/stdout.
 * It keeps a queue of the events the scenario waits for, so that an event that arrives
 * before its response (a stopped event often does) is not missed.
 */
export class Adapter {
  /**
   * @param {string} bin the heddle binary
   * @param {string} tmp the adapter's TMPDIR, where its builds and debuggees live
   */
  constructor(bin, tmp) {
    // DebugClient.start spawns `runtime executable`: spawn(bin, ['dap']).
    this.client = new DebugClient(bin, 'dap', 'heddle', { cwd: REPO, env: { ...process.env, TMPDIR: tmp } }, VERBOSE);
    this.client.defaultTimeout = TIMEOUT;
    /** @type {import('@vscode/debugprotocol').DebugProtocol.Event[]} */
    this.queue = [];
    /** @type {{match: (e: any) => boolean, resolve: (e: any) => void}[]} */
    this.waiters = [];
    /** @type {any[]} every heddle/bugFound event, in order */
    this.bugs = [];
    this.outputs = [];
    /** @type {any[]} the other threads' states that came with each stop, in order */
    this.threadStates = [];
    for (const name of QUEUED) {
      this.client.on(name, (e) => {
        e.receivedAt = performance.now();
        if (name === 'stopped' && e.body?.preserveFocusHint) {
          // Not a stop of the program: the state of another thread, sent with each stop.
          this.threadStates.push(e.body);
          return;
        }
        if (name === 'heddle/bugFound') this.bugs.push(e);
        if (VERBOSE) log(`<- event ${name} ${JSON.stringify(e.body ?? {})}`);
        const i = this.waiters.findIndex((w) => w.match(e));
        if (i >= 0) {
          const [w] = this.waiters.splice(i, 1);
          w.resolve(e);
        } else {
          this.queue.push(e);
        }
      });
    }
    this.client.on('output', (e) => {
      this.outputs.push(e.body?.output ?? '');
      if (VERBOSE) log(`<- output ${JSON.stringify(e.body)}`);
    });
  }

  async start() {
    await this.client.start();
  }

  /** The adapter's process, which DebugClient keeps to itself. */
  get process() {
    return /** @type {import('node:child_process').ChildProcess | null} */ (this.client._adapterProcess);
  }

  /**
   * Sends a request and returns its response; fails with the adapter's message on an error
   * response, or after timeout ms.
   * @param {string} command
   * @param {any} [args]
   * @param {number} [timeout]
   */
  async request(command, args, timeout = TIMEOUT) {
    if (VERBOSE) log(`-> ${command} ${JSON.stringify(args ?? {})}`);
    try {
      const r = await within(this.client.customRequest(command, args), `request ${command}`, timeout);
      if (VERBOSE) log(`<- response ${command} ${JSON.stringify(r.body ?? {})}`);
      return r;
    } catch (err) {
      throw new Error(`${command} ${JSON.stringify(args ?? {})} failed: ${err.message}`);
    }
  }

  /**
   * Returns the first queued or future event that satisfies match.
   * @param {string} name
   * @param {(e: any) => boolean} [match]
   * @param {number} [timeout]
   */
  event(name, match = () => true, timeout = TIMEOUT, named = (e) => e.event === name) {
    const m = (e) => named(e) && match(e);
    const i = this.queue.findIndex(m);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0]);
    let waiter;
    const p = new Promise((resolve) => {
      waiter = { match: m, resolve };
      this.waiters.push(waiter);
    });
    return within(p, `event ${name}`, timeout).catch((err) => {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      throw new Error(`${err.message}; queued events: ${this.queue.map((e) => `${e.event} ${JSON.stringify(e.body ?? {})}`).join('; ') || 'none'}`);
    });
  }

  /**
   * Returns the first queued or future event named one of names.
   * @param {string[]} names
   */
  eventAmong(names, timeout = TIMEOUT) {
    return this.event(names.join('|'), undefined, timeout, (e) => names.includes(e.event));
  }

  /** Fails if an event of this name is queued: each stop must be accounted for. */
  assertNoQueued(name) {
    const left = this.queue.filter((e) => e.event === name);
    assert.equal(left.length, 0, `unexpected ${name} events: ${JSON.stringify(left.map((e) => e.body))}`);
  }

  /**
   * Waits for the next stopped event and returns its body.
   * @returns {Promise<import('@vscode/debugprotocol').DebugProtocol.StoppedEvent['body']>}
   */
  async stopped(timeout = TIMEOUT) {
    const e = await this.event('stopped', undefined, timeout);
    return e.body;
  }

  /** initialize, then launch; returns when launch has succeeded and `initialized` came. */
  async launch(args) {
    const init = await this.request('initialize', {
      adapterID: 'heddle', clientID: 'e2e', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path',
    });
    assert.equal(init.body?.supportsStepBack, true, 'initialize: supportsStepBack');
    assert.equal(init.body?.supportsConfigurationDoneRequest, true, 'initialize: supportsConfigurationDoneRequest');
    await this.request('launch', args, 5 * TIMEOUT);
    await this.event('initialized');
  }

  /** Sets the breakpoints of bank.go to lines and checks each is verified where asked. */
  async breakpoints(lines, source = BANK_GO) {
    const r = await this.client.setBreakpointsRequest({
      source: { path: source }, lines, breakpoints: lines.map((line) => ({ line })),
    });
    const bps = r.body.breakpoints;
    assert.equal(bps.length, lines.length, `setBreakpoints ${lines}: ${JSON.stringify(bps)}`);
    bps.forEach((bp, i) => {
      assert.equal(bp.verified, true, `breakpoint at line ${lines[i]} not verified: ${JSON.stringify(bp)}`);
      assert.equal(bp.line, lines[i], `breakpoint at line ${lines[i]} moved: ${JSON.stringify(bp)}`);
    });
  }

  /** @returns {Promise<import('@vscode/debugprotocol').DebugProtocol.StackFrame[]>} */
  async stack(threadId) {
    const r = await this.request('stackTrace', { threadId, startFrame: 0, levels: 20 });
    return r.body.stackFrames;
  }

  async top(threadId) {
    const fs = await this.stack(threadId);
    assert.ok(fs.length > 0, `thread ${threadId} has no frames`);
    return fs[0];
  }

  /** @returns {Promise<import('@vscode/debugprotocol').DebugProtocol.Thread[]>} */
  async threads() {
    const r = await this.request('threads');
    return r.body.threads;
  }

  /** The logical id of a thread (`G1.2` of `G1.2 bank.go:15 Transfer`). */
  async threadName(threadId) {
    const th = (await this.threads()).find((t) => t.id === threadId);
    assert.ok(th, `thread ${threadId} is not among the threads`);
    return th.name.split(' ')[0];
  }

  /** Evaluates expr in the top frame of threadId. */
  async evaluate(threadId, expr) {
    const f = await this.top(threadId);
    const r = await this.request('evaluate', { expression: expr, frameId: f.id, context: 'watch' });
    return r.body.result;
  }

  /**
   * Sends a request that resumes the program and returns the stopped event that follows,
   * with the time it took.
   */
  async resume(command, args, timeout = 2 * TIMEOUT) {
    this.assertNoQueued('stopped');
    const t0 = performance.now();
    await this.request(command, args, timeout);
    // A stopped event that came before the response is in the queue.
    const stop = await this.stopped(timeout);
    return { stop, took: performance.now() - t0 };
  }

  /**
   * Disconnects, then closes the adapter's stdin and waits for it to exit (killing it
   * after 15 s); returns the adapter's exit code or signal.
   */
  async close() {
    const p = this.process;
    const exited = p && p.exitCode === null && p.signalCode === null
      ? new Promise((resolve) => p.once('exit', (code, signal) => resolve(signal ?? code)))
      : Promise.resolve(p ? (p.signalCode ?? p.exitCode) : null);
    try {
      await this.request('disconnect', { terminateDebuggee: true }, 30000);
    } finally {
      p?.stdin?.end();
      const timer = setTimeout(() => p?.kill('SIGKILL'), 15000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** Kills the adapter if it is still running (for after a failure). */
  kill() {
    const p = this.process;
    if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  }
}

/**
 * @typedef {{pid: number, ppid: number, state: string, start: string, cmd: string}} Proc
 */

/** Reads /proc/PID, or returns null if the process is gone. @returns {Proc | null} */
function readProc(pid) {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name in parentheses: state ppid ... starttime (field 22).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid: Number(pid), state: f[0], ppid: Number(f[1]), start: f[19], cmd };
  } catch {
    return null;
  }
}

/** Every process of the machine. @returns {Proc[]} */
export function processes() {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(readProc).filter((p) => p !== null);
}

/** Whether p is still running (the same process, not a zombie, not a reused pid). */
export function alive(p) {
  const now = readProc(p.pid);
  return now !== null && now.start === p.start && now.state !== 'Z' && now.state !== 'X';
}

/** The processes descended from the processes roots. @param {number[]} roots */
export function descendants(roots) {
  const all = processes();
  const found = [];
  let frontier = new Set(roots);
  while (frontier.size > 0) {
    const next = all.filter((p) => frontier.has(p.ppid));
    found.push(...next);
    frontier = new Set(next.map((p) => p.pid));
  }
  return found;
}

/**
 * The live (non-zombie) processes whose command line mentions bank.test or
 * TestHeddleWorker, and, if within is given, also mentions it (a directory).
 * @param {string} [within]
 * @returns {Proc[]}
 */
export function debuggees(within) {
  return processes().filter((p) =>
    (p.cmd.includes('bank.test') || p.cmd.includes('TestHeddleWorker'))
    && (!within || p.cmd.includes(within))
    && p.state !== 'Z' && p.state !== 'X');
}

/**
 * Waits up to timeout ms until check() returns an empty list; returns the last list and
 * how long it waited.
 * @template T
 * @param {() => T[]} check
 */
export async function gone(check, timeout = 10000) {
  const t0 = performance.now();
  for (;;) {
    const left = check();
    if (left.length === 0 || performance.now() - t0 > timeout) return { left, waited: performance.now() - t0 };
    await new Promise((r) => setTimeout(r, 100));
  }
}
