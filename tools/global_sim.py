#!/usr/bin/env python3
"""Projects tine's reduce and sort over a global vector to many ranks, with the data they move
between ranks (docs/distributed_projection.md, "Data movement: sort and reduce").

The layout is global_vector's: n elements of 8 bytes (doubles) on P ranks of one worker each,
rank r holding [r*B, (r+1)*B), B = ceil(n / P). Pieces are cut as tine's algorithms cut them
(global_split.hpp's cut_at: at the block boundary nearest the middle, else at the middle) down to
leaves of the automatic grain: ceil(n / (64 P)) elements for reduce, at least 1,024 for sort.
A transfer of b bytes between two ranks costs latency + b / bandwidth, paid by the rank that
runs the piece; the holder's side (its network link serving several readers at once) is free.
Every rank is taken to be on a machine of its own: ranks of one machine map each other's blocks
and read them in place, moving nothing through MPI, so the bytes here are those between machines.

reduce (`--workload reduce`): simulated, steal by steal, with tools/steal_sim.py's rules: the
root starts on rank 0; a worker runs its pieces depth first, keeping the right half of every cut
as a continuation; an idle worker picks a victim uniformly, pays `fail_us` for a miss or
`steal_us` for taking the victim's oldest continuation, and `join_us` when that work is done.
(steal_sim.py's event loop is not reused: it derives a busy worker's place from the time it
started and one cost per node, and here a leaf's cost depends on the rank that runs it.) A leaf
costs `elem_ns` per element, plus a get of its elements when another rank holds them. The
combine of the partial sums and the broadcast of the result are left out.

sort (`--workload sort`): a model of whole pieces, not of steals. A piece sorts its halves into
the other buffer (the input or the scratch vector, at the same indices) and merges them, through
pieces split by binary searches, into its own, the root's being the input: the levels alternate
between the buffers and nothing is copied back (global_sort.hpp). A leaf reads its elements from
the input and writes them sorted to the input or, when its result belongs in the scratch, to the
scratch's same indices, which the same rank holds. Keys are random: a merge of runs of a and b
elements splits the longer at its middle and the other in proportion, down to pieces of at most
a leaf. A leaf sort costs `sort_ns` m log2 m (a leaf's copy into the scratch is not charged: one
pass over memory, against the sort's log2 m), each merge level `merge_ns` per element (the merge
and its share of the order check). A probe of a binary search that reads another rank's
memory fetches a 4 KiB line (the block cache's): the probes while the range left is wider than a
line fetch one each, and the rest one more. Where the pieces run (`--placement`):
- owner (default): every piece on the rank that holds its output, as if thieves took work where
  its data is (tine's random steals do not ensure it). A rank's block is sorted on that rank,
  locally (its leaves' copies into the scratch too); above it, a merge of two pieces begins once
  both are sorted and lasts as long as its slowest rank's share (its merging, gets, puts and
  probes).
- random: every leaf, merge piece and search on a uniformly random rank, so that each of its
  reads and writes is another rank's with probability (P - 1) / P (a leaf's read of the input and
  write of the scratch together: one rank holds both), and the expected work spread evenly over
  the ranks (time = all work / P): what random steals tend to at many ranks.
Not modelled for sort: the steals themselves, cache hits across searches, a merge's pieces
straddling a block boundary, the scratch vector's allocation.

Defaults (`--costs machine`: this machine's ranks moving data through MPI, as between machines;
bench/journal/2026-11-27-distributed-global-algorithms.md, whose two-rank bytes come from runs
with TINE_MPI_RANKS_PER_MACHINE=1):
- elem_ns 1.27: reduce of 10^8 doubles on one rank, 127.1 ms, the mean of the two runs (122.9,
  131.3 ms) of the session that measured merge_ns ("Distributed: algorithms on global vectors").
- sort_ns 4.10: serial std::sort of 10^7 random doubles, 954 ms ("Sort", run D), over
  10^7 log2(10^7) element-levels.
- merge_ns 10.24: the rest of tine::sort's one-rank time on 10^7 random doubles (1321.7 ms, the
  mean of the session's final two runs, 1294.3 and 1349.1; "Distributed: algorithms on global
  vectors") after its 64 leaves' std::sort (707.4 ms at sort_ns), over its 6 merge levels of 10^7
  elements; its leaves, 6 levels down, sort in place and copy nothing. (It was 8.84, from
  1238.5 ms, when each level was also copied back: that session ran faster, its reduce of 10^8
  doubles 104.0-111.9 ms, so the two values do not measure what the copy cost.)
- latency_us 1.45, bandwidth_gbs 2.2: a get as latency + bytes / bandwidth, fitted to the get of
  256 B (1.56 µs) and 64 KiB (31 µs) with MPICH's asynchronous progress ("Distributed: the cost
  of one-sided operations", round 1; it predicts 3.3 µs for 4 KiB, measured 3.2).
- steal_us 12, fail_us 1.6, join_us 2: steal_sim.py's defaults (a steal from the deque that was
  then the lane plus a frame's get; a get; a fetch-and-op).
`--costs paper`: the same compute costs; steal_us 20.4, fail_us 3, join_us 3 (the paper's
steal latency on Wisteria-O, as steal_sim.py's "tine on the paper's network"); latency_us 3 and
bandwidth_gbs 10 per rank, assumed for an InfiniBand-class network. Any cost can be overridden.

usage: global_sim.py --workload reduce|sort --ranks P --n N [--costs machine|paper]
                     [--placement owner|random] [--grain G] [--seed 1] [--elem-ns ...]
                     [--sort-ns ...] [--merge-ns ...] [--latency-us ...] [--bandwidth-gbs ...]
                     [--steal-us ...] [--fail-us ...] [--join-us ...]
Prints the time, the one-rank (serial) time, the efficiency (serial time over P times the
time), the bytes moved between ranks (in all and per rank, MB of 10^6 bytes) and, for reduce,
the steals and failed attempts.
"""
import argparse
import heapq
import itertools
import math
import random
import sys

ELEMENT_BYTES = 8
LINE_BYTES = 4096  # the block cache's line
LINE_ELEMENTS = LINE_BYTES // ELEMENT_BYTES
LEAVES_PER_WORKER = 64  # the automatic grain (algorithms/grain.hpp)
MIN_COMPARISON_LEAF = 1024  # sort's leaves hold at least this many elements (the same file)

COMPUTE = {"elem_ns": 1.27, "sort_ns": 4.10, "merge_ns": 10.24}
NETWORKS = {
    "machine": {"latency_us": 1.45, "bandwidth_gbs": 2.2, "steal_us": 12.0, "fail_us": 1.6,
                "join_us": 2.0},
    "paper": {"latency_us": 3.0, "bandwidth_gbs": 10.0, "steal_us": 20.4, "fail_us": 3.0,
              "join_us": 3.0},
}


class Costs:
    """Per-operation costs, in seconds (and bytes per second)."""

    def __init__(self, elem_ns, sort_ns, merge_ns, latency_us, bandwidth_gbs, steal_us, fail_us,
                 join_us):
        self.elem = elem_ns * 1e-9
        self.sort = sort_ns * 1e-9
        self.merge = merge_ns * 1e-9
        self.latency = latency_us * 1e-6
        self.bandwidth = bandwidth_gbs * 1e9
        self.steal = steal_us * 1e-6
        self.fail = fail_us * 1e-6
        self.join = join_us * 1e-6

    def transfer(self, nbytes):
        """One get or put of `nbytes`, waited for."""
        return self.latency + nbytes / self.bandwidth if nbytes > 0 else 0.0


def costs_for(network="machine", **overrides):
    """The cost set `network` ("machine" or "paper"), with any cost given in `overrides`."""
    values = dict(COMPUTE, **NETWORKS[network])
    values.update({k: v for k, v in overrides.items() if v is not None})
    return Costs(**values)


class Layout:
    """global_vector's blocks: rank r holds [r*block, (r+1)*block)."""

    def __init__(self, n, ranks):
        self.n = n
        self.ranks = ranks
        self.block = max(1, -(-n // ranks))

    def owner(self, i):
        return i // self.block

    def single_owner(self, lo, count):
        """The rank holding all of [lo, lo + count) if one does (count > 0), else None."""
        first = lo // self.block
        return first if (lo + count - 1) // self.block == first else None

    def parts(self, lo, count):
        """(rank, elements) for each rank holding part of [lo, lo + count)."""
        while count > 0:
            rank = lo // self.block
            part = min(count, (rank + 1) * self.block - lo)
            yield rank, part
            lo += part
            count -= part


def cut_at(first, n, block):
    """global_split.hpp's cut_at: the size of the left part of [first, first + n) (n >= 2), cut
    at the block boundary nearest the middle if one is inside, else at the middle."""
    middle = first + n // 2
    below = middle // block * block
    cut = n // 2
    distance = None
    if below > first:
        cut = below - first
        distance = middle - below
    if first + n - below > block and (distance is None or below + block - middle < distance):
        cut = below + block - first
    return cut


def reduce_leaf(n, ranks, grain=None):
    return grain if grain else max(1, -(-n // (LEAVES_PER_WORKER * ranks)))


def sort_leaf(n, ranks, grain=None):
    # At least 2, as global_sort.hpp's, so that every merge split makes progress.
    return max(2, grain) if grain else max(MIN_COMPARISON_LEAF, reduce_leaf(n, ranks))


def simulate_reduce(n, ranks, costs, leaf, seed=1):
    """Simulates a reduce of n elements on `ranks` ranks of one worker; returns a dict: time,
    serial (s), moved (bytes between ranks), steals, failures, stolen_elements (in the ranges
    thieves took), stolen_leaf_elements (in the leaves run from stolen work)."""
    layout = Layout(n, ranks)
    rng = random.Random(seed)
    work = [[] for _ in range(ranks)]  # each worker's continuations, (lo, count), oldest first
    from_steal = [False] * ranks  # whether the worker's work came from a steal
    owes_join = [0] * ranks
    events = []  # (time, sequence, kind, worker, stolen range)
    sequence = itertools.count()  # ties go in the order queued: a seed repeats its run
    leaf_done, attempt, arrival = 0, 1, 2
    out = {"moved": 0, "steals": 0, "failures": 0, "stolen_elements": 0,
           "stolen_leaf_elements": 0}

    def start(w, t, lo, count):
        # Down to a leaf at once (the cuts cost nothing here), keeping each right part.
        while count > leaf:
            left = cut_at(lo, count, layout.block)
            work[w].append((lo + left, count - left))
            count = left
        cost = count * costs.elem
        for rank, part in layout.parts(lo, count):
            if rank != w:
                cost += costs.transfer(part * ELEMENT_BYTES)
                out["moved"] += part * ELEMENT_BYTES
        if from_steal[w]:
            out["stolen_leaf_elements"] += count
        heapq.heappush(events, (t + cost, next(sequence), leaf_done, w, None))

    busy = 1  # workers with work, or with stolen work on its way
    start(0, 0.0, 0, n)
    for w in range(1, ranks):
        heapq.heappush(events, (0.0, next(sequence), attempt, w, None))
    end = 0.0
    while events:
        t, _, kind, w, loot = heapq.heappop(events)
        if kind == leaf_done:
            if work[w]:
                start(w, t, *work[w].pop())
                continue
            t += owes_join[w] * costs.join
            owes_join[w] = 0
            busy -= 1
            end = max(end, t)
            if ranks > 1:
                heapq.heappush(events, (t, next(sequence), attempt, w, None))
        elif kind == attempt:
            if busy == 0:
                continue  # the reduce is done: w stops
            victim = rng.randrange(ranks - 1)
            victim += victim >= w
            if work[victim]:
                loot = work[victim].pop(0)
                out["steals"] += 1
                out["stolen_elements"] += loot[1]
                busy += 1
                heapq.heappush(events, (t + costs.steal, next(sequence), arrival, w, loot))
            else:
                out["failures"] += 1
                heapq.heappush(events, (t + costs.fail, next(sequence), attempt, w, None))
        else:  # the stolen range arrives
            owes_join[w] += 1
            from_steal[w] = True
            start(w, t, *loot)
    out["time"] = end
    out["serial"] = n * costs.elem
    return out


def search_lines_all_remote(count):
    """Lines a binary search over `count` elements of another rank fetches."""
    if count == 0:
        return 0
    lines = 1
    width = float(count)
    while width > LINE_ELEMENTS:
        lines += 1
        width /= 2
    return lines


def split_merge(an, bn):
    """Where a merge of sorted runs of an and bn random keys splits (an + bn > leaf): the longer
    run at its middle, the other where that element belongs, in expectation (in proportion).
    Returns (am, bm, whether A is the one split at its middle)."""
    if an >= bn:
        am = an // 2
        return am, (bn * am + an // 2) // an, True
    bm = bn // 2
    return (an * bm + bn // 2) // bn, bm, False


class SortModel:
    """tine::sort of n random keys on `ranks` ranks of one worker, pieces placed as `placement`
    says ("owner" or "random"); see the file comment."""

    def __init__(self, n, ranks, costs, leaf, placement="owner"):
        self.layout = Layout(n, ranks)
        self.costs = costs
        self.leaf = leaf
        self.placement = placement
        self.remote = (ranks - 1) / ranks  # a random rank is another's
        self.line = costs.transfer(LINE_BYTES)
        self._local = {}
        self._merges = {}

    def local_sort(self, m):
        """Time of a sort of m elements on one rank, all local: leaf sorts and merge levels."""
        if m not in self._local:
            if m <= self.leaf:
                self._local[m] = self.costs.sort * m * math.log2(m) if m > 1 else 0.0
            else:
                half = m // 2
                self._local[m] = (self.local_sort(half) + self.local_sort(m - half) +
                                  self.costs.merge * m)
        return self._local[m]

    def uniform_merge(self, an, bn, pa, pb, pout):
        """A merge of runs of an and bn elements into an output, every piece on one rank for
        which run A is another rank's with probability pa, B with pb, the output with pout.
        Returns (time, data bytes, probe lines)."""
        key = (an, bn, pa, pb, pout)
        if key in self._merges:
            return self._merges[key]
        c = self.costs
        if an + bn <= self.leaf:
            time = c.merge * (an + bn) + (pa * c.transfer(an * ELEMENT_BYTES) +
                                          pb * c.transfer(bn * ELEMENT_BYTES) +
                                          pout * c.transfer((an + bn) * ELEMENT_BYTES))
            result = (time, ELEMENT_BYTES * (pa * an + pb * bn + pout * (an + bn)), 0.0)
        else:
            am, bm, a_first = split_merge(an, bn)
            if a_first:
                lines = pa + pb * search_lines_all_remote(bn)
            else:
                lines = pb + pa * search_lines_all_remote(an)
            left = self.uniform_merge(am, bm, pa, pb, pout)
            right = self.uniform_merge(an - am, bn - bm, pa, pb, pout)
            result = (left[0] + right[0] + lines * self.line, left[1] + right[1],
                      left[2] + right[2] + lines)
        self._merges[key] = result
        return result

    def search_lines(self, lo, count, target, runner):
        """Lines fetched by rank `runner`'s binary search over [lo, lo + count) for `target`:
        the probes at the middle of each range wider than a line, then the target's line, each
        counted when another rank holds it."""
        if count == 0:
            return 0
        owner = self.layout.owner
        lines = 0
        start = float(lo)
        width = float(count)
        while width > LINE_ELEMENTS:
            half = width / 2
            lines += owner(int(start + half)) != runner
            if target >= start + half:
                start += half
            width = half
        return lines + (owner(min(max(target, lo), lo + count - 1)) != runner)

    def checkout(self, runner, lo, count):
        """(time, bytes) of a checkout of [lo, lo + count) by `runner`: a transfer per other rank
        holding part of it."""
        time = 0.0
        moved = 0
        for rank, part in self.layout.parts(lo, count):
            if rank != runner:
                time += self.costs.transfer(part * ELEMENT_BYTES)
                moved += part * ELEMENT_BYTES
        return time, moved

    def owner_merge(self, a, an, b, bn, out, per_rank, totals):
        """Adds each rank's share of the merge of [a, a + an) and [b, b + bn) of one buffer into
        [out, out + an + bn) of the other, every piece on the rank holding its output's start, to
        per_rank (rank: seconds); bytes and lines to totals. (Both buffers have the same blocks,
        so which is which does not matter.)"""
        layout = self.layout
        if an + bn == 0:
            return
        runner = layout.owner(out)
        ra = layout.single_owner(a, an) if an else runner
        rb = layout.single_owner(b, bn) if bn else runner
        if layout.single_owner(out, an + bn) == runner and ra is not None and rb is not None:
            # Every piece below runs on `runner` and reads A from one rank and B from one: the
            # costs depend only on the sizes.
            time, moved, lines = self.uniform_merge(an, bn, int(ra != runner), int(rb != runner),
                                                    0)
            per_rank[runner] = per_rank.get(runner, 0.0) + time
            totals["data"] += moved
            totals["lines"] += lines
            return
        if an + bn <= self.leaf:
            time = self.costs.merge * (an + bn)
            for lo, count in ((a, an), (b, bn), (out, an + bn)):
                t, moved = self.checkout(runner, lo, count)
                time += t
                totals["data"] += moved
            per_rank[runner] = per_rank.get(runner, 0.0) + time
            return
        am, bm, a_first = split_merge(an, bn)
        if a_first:
            lines = (layout.owner(a + am) != runner) + self.search_lines(b, bn, b + bm, runner)
        else:
            lines = (layout.owner(b + bm) != runner) + self.search_lines(a, an, a + am, runner)
        per_rank[runner] = per_rank.get(runner, 0.0) + lines * self.line
        totals["lines"] += lines
        self.owner_merge(a, am, b, bm, out, per_rank, totals)
        self.owner_merge(a + am, an - am, b + bm, bn - bm, out + am + bm, per_rank, totals)

    def owner_sort(self, lo, m, totals):
        """When piece [lo, lo + m) is sorted, from the start."""
        layout = self.layout
        if layout.single_owner(lo, m) is not None:
            return self.local_sort(m)  # a block, sorted by its own rank
        if m <= self.leaf:
            # A leaf across ranks, run by its first rank: a get of the input's other-rank part and
            # a put of it, back to the input or to the scratch's same indices (the same ranks').
            time, moved = self.checkout(layout.owner(lo), lo, m)
            totals["data"] += 2 * moved
            return self.local_sort(m) + 2 * time
        left = cut_at(lo, m, layout.block)
        ready = max(self.owner_sort(lo, left, totals),
                    self.owner_sort(lo + left, m - left, totals))
        per_rank = {}
        self.owner_merge(lo, left, lo + left, m - left, lo, per_rank, totals)
        return ready + max(per_rank.values())

    def random_sort(self, lo, m, totals):
        """The expected work (seconds, over all ranks) of piece [lo, lo + m)."""
        c = self.costs
        p = self.remote
        if m <= self.leaf:
            # A read of the input and a write of the input or of the scratch's same indices: one
            # rank holds both, another than the runner with probability p.
            totals["data"] += 2 * p * m * ELEMENT_BYTES
            return self.local_sort(m) + 2 * p * c.transfer(m * ELEMENT_BYTES)
        left = cut_at(lo, m, self.layout.block)
        work = self.random_sort(lo, left, totals) + self.random_sort(lo + left, m - left, totals)
        time, moved, lines = self.uniform_merge(left, m - left, p, p, p)
        totals["data"] += moved
        totals["lines"] += lines
        return work + time

    def run(self):
        """Returns a dict: time (s), data and line bytes moved between ranks, moved (both)."""
        totals = {"data": 0.0, "lines": 0.0}
        n = self.layout.n
        if self.placement == "owner":
            time = self.owner_sort(0, n, totals)
        else:
            time = self.random_sort(0, n, totals) / self.layout.ranks
        data = totals["data"]
        lines = totals["lines"] * LINE_BYTES
        return {"time": time, "data": data, "line_bytes": lines, "moved": data + lines}


def model_sort(n, ranks, costs, grain=None, placement="owner"):
    """A sort of n random doubles on `ranks` ranks; the dict of SortModel.run plus serial: the
    one-rank time (at one rank's automatic grain, or `grain`)."""
    out = SortModel(n, ranks, costs, sort_leaf(n, ranks, grain), placement).run()
    out["serial"] = SortModel(n, 1, costs, sort_leaf(n, 1, grain)).run()["time"]
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workload", choices=["reduce", "sort"], required=True)
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--n", type=int, required=True, help="elements (8-byte doubles)")
    p.add_argument("--costs", choices=sorted(NETWORKS), default="machine")
    p.add_argument("--placement", choices=["owner", "random"], default="owner",
                   help="sort: where its pieces run")
    p.add_argument("--grain", type=int, help="the leaf size (default: the automatic grain)")
    p.add_argument("--seed", type=int, default=1, help="reduce: the victims' random seed")
    for name in list(COMPUTE) + list(NETWORKS["machine"]):
        p.add_argument("--" + name.replace("_", "-"), type=float, dest=name)
    a = p.parse_args(argv)
    if a.ranks < 1 or a.n < 1 or (a.grain is not None and a.grain < 1):
        p.error("ranks, n and grain must be at least 1")
    if a.workload == "sort" and a.n < 2:
        p.error("a sort of fewer than 2 elements does nothing: n must be at least 2")
    overrides = {k: getattr(a, k) for k in list(COMPUTE) + list(NETWORKS["machine"])}
    costs = costs_for(a.costs, **overrides)
    if costs.fail <= 0 or costs.bandwidth <= 0 or min(vars(costs).values()) < 0:
        p.error("fail-us and bandwidth-gbs must be positive, the other costs not negative")
    if a.workload == "reduce":
        leaf = reduce_leaf(a.n, a.ranks, a.grain)
        r = simulate_reduce(a.n, a.ranks, costs, leaf, a.seed)
        extra = f"  steals {r['steals']}  failed attempts {r['failures']}"
    else:
        leaf = sort_leaf(a.n, a.ranks, a.grain)
        r = model_sort(a.n, a.ranks, costs, a.grain, a.placement)
        extra = (f"  placement {a.placement}  of which probe lines "
                 f"{r['line_bytes'] / 1e6:.1f} MB")
    print(f"{a.workload}  ranks {a.ranks}  n {a.n}  leaf {leaf}  costs {a.costs}  "
          f"time {r['time'] * 1e3:.3f} ms  serial {r['serial'] * 1e3:.3f} ms  "
          f"efficiency {r['serial'] / (a.ranks * r['time']):.4f}  "
          f"moved {r['moved'] / 1e6:.1f} MB ({r['moved'] / 1e6 / a.ranks:.2f} MB per rank)"
          + extra)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
