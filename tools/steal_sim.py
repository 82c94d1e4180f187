#!/usr/bin/env python3
"""A small simulator of randomized continuation stealing on a UTS-like tree, for projecting a
distributed pool's efficiency from per-operation costs (docs/distributed_projection.md).

The model, deliberately simple:
- The tree: every node at depth < d has b children (the expected shape of a geometric UTS tree
  with branching b and depth limit d); each node costs `work_ns` to visit.
- Each worker traverses depth-first with continuation stealing: its deque holds, for each level
  of its path, the children of that level it has not started; the newest is taken back, the
  oldest (shallowest) is what a thief gets, all its remaining children at once (never the node
  in progress).
- An idle worker picks a victim uniformly and pays `fail_us` for an attempt that finds nothing
  or `steal_us` (the steal's round trips plus the frame copy) for one that succeeds, after which
  the stolen children are its work; each successful steal also costs its thief `join_us` when
  that work is done (the remote arrival at the stolen frame's join).
- Ranks of several workers (`--threads T`): an idle worker first tries a worker of its own rank
  (`local_steal_us` for a success, `local_fail_us` for a miss); when that finds nothing, it
  tries a worker of another rank at the costs above, as tine's pool does. With `--one-thief`,
  only one worker of a rank at a time may try another rank (the others wait a miss's time and
  look again). A steal within a rank costs no remote join.
- Nothing else: no contention between thieves of one victim, no memory effects.

Only steals and completions are events: a busy worker's position in its traversal is computed
when needed (from the time it started and the node cost), so trees of billions of nodes run in
seconds; the cost grows with the number of steal attempts.

usage: steal_sim.py --ranks P [--threads 1] [--one-thief] [--branching 4] [--depth 10]
                    [--work-ns 76] [--steal-us 12] [--fail-us 1.6] [--join-us 2]
                    [--local-steal-us 1] [--local-fail-us 1] [--seed 1]
The default costs are tine's measured ones with MPICH's asynchronous progress on one machine (a
UTS T1 node at one worker; a steal from the deque that was then the lane, plus a frame's get;
a get; a fetch-and-op).
Prints the nodes, the time, the efficiency (serial time over P times the parallel time), and
the successful and failed steal attempts.
"""
import argparse
import heapq
import random
import sys


class Tree:
    def __init__(self, branching, depth):
        self.b = branching
        self.d = depth
        # size[k]: nodes in the subtree of a node at depth k.
        self.size = [0] * (depth + 2)
        for k in range(depth, -1, -1):
            self.size[k] = 1 + (branching * self.size[k + 1] if k < depth else 0)

    def nodes(self):
        return self.size[0]


def remaining(tree, pending):
    """Nodes left in a worker's pending work: [depth, count] entries, shallowest first."""
    return sum(c * tree.size[k] for k, c in pending)


def advance(tree, pending, n):
    """Visits n nodes of `pending` depth-first (newest, deepest entries first)."""
    while n > 0 and pending:
        k, c = pending[-1]
        s = tree.size[k]
        if n >= c * s:
            n -= c * s
            pending.pop()
            continue
        full = n // s
        pending[-1][1] -= full
        n -= full * s
        if n == 0:
            break
        # Into one more subtree: visit its root, and its children become the newest entry.
        pending[-1][1] -= 1
        if pending[-1][1] == 0:
            pending.pop()
        n -= 1
        if k < tree.d:
            pending.append([k + 1, tree.b])


def take_oldest(pending):
    """What a thief takes from a worker's pending work: the oldest (shallowest) continuation, all
    its children not yet started; None if there is none. The newest entry's first node is the one
    in progress, which stays with its worker."""
    if not pending:
        return None
    if len(pending) > 1:
        return pending.pop(0)
    k, c = pending[0]
    if c < 2:
        return None
    pending[0][1] = 1
    return [k, c - 1]


def simulate(ranks, tree, work_ns, steal_us, fail_us, join_us, seed, threads=1,
             local_steal_us=1.0, local_fail_us=1.0, one_thief=False):
    """Returns (parallel time in seconds, successful steals, failed attempts, nodes visited);
    the steals and attempts are those across ranks when a rank has several threads."""
    rng = random.Random(seed)
    work = work_ns * 1e-9
    steal = steal_us * 1e-6
    fail = fail_us * 1e-6
    join = join_us * 1e-6
    local_steal = local_steal_us * 1e-6
    local_fail = local_fail_us * 1e-6
    workers = ranks * threads
    thief = [False] * ranks  # a worker of the rank is stealing across ranks
    # Per worker: pending entries, the time they were last brought up to date, a version that
    # invalidates its queued finish event when a steal changes its work, the joins it pays when
    # its work is done, and the work a successful steal is bringing it.
    pending = [[] for _ in range(workers)]
    since = [0.0] * workers
    version = [0] * workers
    owes_join = [0] * workers
    incoming = [None] * workers
    busy = 0  # workers with work, or with stolen work on its way
    events = []  # (time, kind, worker, version): kind 0 finish, 1 attempt, 2 arrival

    def bring_up_to_date(w, t):
        # Whole nodes only: the node in progress stays in progress (since moves by whole nodes).
        nonlocal visited
        if pending[w]:
            done = min(int((t - since[w]) / work + 1e-9), remaining(tree, pending[w]))
            advance(tree, pending[w], done)
            since[w] += done * work
            visited += done
        else:
            since[w] = t

    def schedule_finish(w, t):
        version[w] += 1
        heapq.heappush(events, (t + remaining(tree, pending[w]) * work, 0, w, version[w]))

    pending[0] = [[0, 1]]
    busy = 1
    schedule_finish(0, 0.0)
    for w in range(1, workers):
        heapq.heappush(events, (0.0, 1, w, 0))
    successes = failures = 0
    visited = 0  # nodes visited, counted as they are: every node exactly once
    end = 0.0
    while events:
        t, kind, w, v = heapq.heappop(events)
        if kind == 0:  # w's work ran out, unless a steal changed it since this was queued
            if v != version[w]:
                continue
            visited += remaining(tree, pending[w])
            pending[w] = []
            t += owes_join[w] * join
            owes_join[w] = 0
            busy -= 1
            end = max(end, t)
            if workers > 1:
                heapq.heappush(events, (t, 1, w, 0))
        elif kind == 1:  # w, idle, tries a victim
            if busy == 0:
                continue  # the tree is done: w stops
            rank = w // threads
            if threads > 1:
                # Another worker of its own rank first.
                victim = rank * threads + rng.randrange(threads - 1)
                victim += victim >= w
                bring_up_to_date(victim, t)
                loot = take_oldest(pending[victim])
                if loot:
                    incoming[w] = loot
                    schedule_finish(victim, since[victim])
                    busy += 1
                    heapq.heappush(events, (t + local_steal, 3, w, 0))
                    continue
                if ranks == 1 or (one_thief and thief[rank]):
                    heapq.heappush(events, (t + local_fail, 1, w, 0))
                    continue
            elif ranks == 1:
                continue
            # A worker of another rank.
            victim = rng.randrange(workers - threads)
            victim += threads if victim >= rank * threads else 0
            bring_up_to_date(victim, t)
            loot = take_oldest(pending[victim])
            thief[rank] = one_thief
            if loot:
                incoming[w] = loot
                schedule_finish(victim, since[victim])
                successes += 1
                busy += 1
                heapq.heappush(events, (t + steal, 2, w, 0))
            else:
                failures += 1
                heapq.heappush(events, (t + fail, 4, w, 0))
        elif kind == 4:  # w's failed attempt across ranks is over: look again
            thief[w // threads] = False
            heapq.heappush(events, (t, 1, w, 0))
        else:  # w's stolen work arrives (2: from another rank, 3: from its own)
            if kind == 2:
                thief[w // threads] = False
                owes_join[w] += 1
            pending[w] = [incoming[w]]
            incoming[w] = None
            since[w] = t
            schedule_finish(w, t)
    return end, successes, failures, visited


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--threads", type=int, default=1, help="workers per rank")
    p.add_argument("--one-thief", action="store_true",
                   help="one worker per rank at a time steals across ranks")
    p.add_argument("--branching", type=int, default=4)
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--work-ns", type=float, default=76.0)
    p.add_argument("--steal-us", type=float, default=12.0)
    p.add_argument("--fail-us", type=float, default=1.6)
    p.add_argument("--join-us", type=float, default=2.0)
    p.add_argument("--local-steal-us", type=float, default=1.0)
    p.add_argument("--local-fail-us", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    if min(a.ranks, a.threads, a.branching) < 1 or a.depth < 0 or a.work_ns <= 0:
        p.error("ranks, threads and branching must be at least 1, depth at least 0, work-ns "
                "positive")
    # A failed attempt that took no time would retry forever at one instant.
    if min(a.fail_us, a.local_fail_us) <= 0 or min(a.steal_us, a.join_us, a.local_steal_us) < 0:
        p.error("fail-us and local-fail-us must be positive, the other costs not negative")
    tree = Tree(a.branching, a.depth)
    t, ok, bad, _ = simulate(a.ranks, tree, a.work_ns, a.steal_us, a.fail_us, a.join_us, a.seed,
                             a.threads, a.local_steal_us, a.local_fail_us, a.one_thief)
    serial = tree.nodes() * a.work_ns * 1e-9
    workers = a.ranks * a.threads
    print(f"ranks {a.ranks}  threads {a.threads}  nodes {tree.nodes()}  time {t * 1e3:.3f} ms  "
          f"efficiency {serial / (workers * t):.4f}  steals across ranks {ok}  "
          f"failed attempts {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
