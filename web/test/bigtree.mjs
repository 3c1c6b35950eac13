// A generated exploration as large as real ones get, for the benchmark and
// the browser test of large trees.

// mulberry32: a small seeded generator, so every run measures the same tree.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// exploration builds a tree shaped as a DPOR search's: each run is a path
// of 30 to 70 decisions from the root, and each new run backtracks to a
// decision point of an earlier run, most often near its end, and branches
// off there. Parents precede children as the format requires. A few runs in
// a hundred find one of three bugs, each of which many runs find again, as
// in real explorations.
export function exploration(n) {
  const rnd = random(1);
  const gs = ["G1", "G1.1", "G1.2", "G1.3"];
  const ops = ["lock", "unlock", "send", "recv", "wg.wait", "atomic.load", "select"];
  const reasons = ["sleep", "persistent", "delayed"];
  const kinds = ["deadlock", "panic", "deadlock"];
  const tree = [];
  const bugs = [];
  const bugOf = new Map();
  const add = (parent) => {
    const node = { id: tree.length, parent, enabled: gs.slice(0, 2 + Math.floor(rnd() * 3)) };
    if (parent >= 0) {
      Object.assign(node, {
        g: gs[Math.floor(rnd() * gs.length)], op: ops[Math.floor(rnd() * ops.length)],
        obj: `G1#${1 + Math.floor(rnd() * 5)}`, pos: { file: "/src/bench/bench.go", line: 10 + Math.floor(rnd() * 90) },
      });
    }
    if (rnd() < 0.2) node.pruned = [{ g: gs[Math.floor(rnd() * gs.length)], reason: reasons[Math.floor(rnd() * 3)] }];
    tree.push(node);
    return node;
  };
  const paths = []; // each run's decision points, root first
  let path = [add(-1)];
  while (tree.length < n) {
    const length = 30 + Math.floor(rnd() * 40);
    while (path.length < length && tree.length < n) path.push(add(path[path.length - 1].id));
    const leaf = path[path.length - 1];
    const r = rnd();
    if (r < 0.03) {
      const which = r < 0.02 ? 0 : r < 0.027 ? 1 : 2;
      if (!bugOf.has(which)) {
        bugOf.set(which, bugs.length);
        bugs.push({ id: bugs.length, kind: kinds[which], message: kinds[which] === "panic" ? "panic: send on closed channel" : "all goroutines are blocked", replay: "heddle replay …", preemptions: 1 });
      }
      leaf.leaf = { verdict: kinds[which], bug: bugOf.get(which) };
    } else leaf.leaf = { verdict: r < 0.1 ? "aborted" : "ok" };
    paths.push(path);
    // Backtrack: mostly to the last run, near its end; sometimes further up.
    const from = rnd() < 0.8 ? path : paths[Math.floor(rnd() * paths.length)];
    const at = Math.max(1, Math.floor((from.length - 1) * (1 - rnd() ** 3)));
    path = from.slice(0, Math.min(at, from.length - 2) + 1);
  }
  const runs = tree.filter((x) => x.leaf).length;
  const buggyRuns = tree.filter((x) => x.leaf?.bug !== undefined).length;
  return {
    heddle: "exploration", version: 1, program: { package: "example.com/bench", test: "TestBench" }, strategy: "dpor",
    stats: { runs, decisions: n, prunedSleep: 0, prunedPersistent: 0, prunedDelayed: 0, bugs: bugs.length, buggyRuns, elapsed: "1m0s", schedulesPerSecond: runs / 60, complete: false },
    tree, bugs,
  };
}
