"""Checks of tools/global_sim.py, the model behind docs/distributed_projection.md's figures for
reduce and sort over global vectors: one rank moves nothing and takes the serial time, a reduce
moves no more than its stolen leaves hold, a sort's bytes on 2 and 2^j ranks are the closed forms
of its block layout (one read and one write of every element per level, no level copied back), and
more ranks take less time at no more than perfect efficiency."""
import unittest

from tools import global_sim

MB = 1e6


def reduce(n, ranks, costs=None, seed=1, grain=None):
    costs = costs or global_sim.costs_for()
    return global_sim.simulate_reduce(n, ranks, costs, global_sim.reduce_leaf(n, ranks, grain),
                                      seed)


def sort(n, ranks, costs=None, grain=None, placement="owner"):
    return global_sim.model_sort(n, ranks, costs or global_sim.costs_for(), grain, placement)


def efficiency(result, ranks):
    return result["serial"] / (ranks * result["time"])


def in_0_1(e):
    # A simulated time is a sum of leaf times, the serial time one product: on one rank they
    # differ in the last bits.
    return 0 < e <= 1 + 1e-12


class LayoutTest(unittest.TestCase):
    def test_cuts_are_global_splits(self):
        # Ten elements on three ranks (blocks of 4): the boundary nearest the middle, then the
        # next one; inside a block, the middle.
        self.assertEqual(global_sim.cut_at(0, 10, 4), 4)
        self.assertEqual(global_sim.cut_at(4, 6, 4), 4)
        self.assertEqual(global_sim.cut_at(0, 4, 4), 2)
        self.assertEqual(global_sim.cut_at(0, 8, 100), 4)
        # Boundaries at 3 and 6 inside [1, 9): the middle is 5, nearer 6.
        self.assertEqual(global_sim.cut_at(1, 8, 3), 5)

    def test_a_search_of_another_ranks_run_fetches_the_lines_it_halves_through(self):
        model = global_sim.SortModel(2 ** 20, 2, global_sim.costs_for(), 2 ** 12)
        right = 2 ** 19  # rank 1's block
        for count in [1, 512, 513, 4096, 2 ** 19]:
            self.assertEqual(model.search_lines(right, count, right + count // 2, 0),
                             global_sim.search_lines_all_remote(count), count)
            self.assertEqual(model.search_lines(right, count, right + count // 2, 1), 0)
        self.assertEqual(global_sim.search_lines_all_remote(2 ** 19), 19 - 8)


class OneRankTest(unittest.TestCase):
    def test_one_rank_moves_nothing_and_takes_the_serial_time(self):
        r = reduce(10 ** 8, 1)
        self.assertEqual((r["moved"], r["steals"], r["failures"]), (0, 0, 0))
        self.assertAlmostEqual(r["time"], 10 ** 8 * 1.27e-9, delta=1e-9)
        for placement in ["owner", "random"]:
            s = sort(10 ** 7, 1, placement=placement)
            self.assertEqual(s["moved"], 0)
            self.assertEqual(s["time"], s["serial"])
        # The one-rank sort is the measurement its costs were fitted to (1321.7 ms).
        self.assertAlmostEqual(sort(10 ** 7, 1)["serial"], 1.3217, delta=0.002)


class ReduceTest(unittest.TestCase):
    def test_bytes_moved_never_exceed_what_the_stolen_leaves_hold(self):
        for ranks in [2, 3, 4, 16, 64]:
            for seed in [1, 2, 3]:
                r = reduce(10 ** 7, ranks, seed=seed)
                self.assertLessEqual(r["moved"], 8 * r["stolen_leaf_elements"], (ranks, seed))
                self.assertLessEqual(r["stolen_leaf_elements"], r["stolen_elements"])
                if ranks >= 4:
                    self.assertGreater(r["moved"], 0, "a thief runs other ranks' leaves")

    def test_two_ranks_split_at_the_block_and_move_nothing(self):
        # Rank 1's first steal is the right half, its own block, and the two halves end together.
        r = reduce(10 ** 8, 2)
        self.assertEqual((r["moved"], r["steals"]), (0, 1))

    def test_a_seed_repeats_its_run(self):
        self.assertEqual(reduce(10 ** 7, 16, seed=7), reduce(10 ** 7, 16, seed=7))


class SortTest(unittest.TestCase):
    def test_two_ranks_move_the_closed_form(self):
        # n = 2^k random keys, leaves of 2^g (g >= 9: a leaf's run spans whole lines): the one
        # merge across ranks has every output half on its rank read the other rank's half of
        # the run it does not hold, n/2 elements in all; its split tree has depth D = k - g.
        # Rank 0 runs the root and 2^(j-1) nodes at each depth j >= 1, each splitting its A
        # run (rank 0's) and searching 2^(k-1-j) elements of rank 1's B run: k - 9 - j lines
        # (the halvings down to a 512-element line, then that line). Rank 1 runs 2^(j-1) nodes
        # at each depth j >= 1, each reading one element of rank 0's A (a line) and searching
        # its own B.
        for k, g in [(20, 13), (22, 10), (18, 9)]:
            depth = k - g
            lines = (k - 9) + sum(2 ** (j - 1) * (k - 9 - j) for j in range(1, depth))
            lines += 2 ** (depth - 1) - 1
            s = sort(2 ** k, 2, grain=2 ** g)
            self.assertEqual(s["data"], 8 * 2 ** (k - 1), (k, g))
            self.assertEqual(s["line_bytes"], 4096 * lines, (k, g))
            self.assertEqual(s["moved"], 8 * 2 ** (k - 1) + 4096 * lines, (k, g))

    def test_merges_across_2_to_the_j_ranks_move_n_times_j_minus_1_plus_1_over_p(self):
        # The merge of 2h blocks: output block i reads half a block from A's block i/2 and half
        # from B's block h + i/2, its own only for i = 0 (A) and i = 2h - 1 (B): n (1 - 1/2h)
        # elements cross ranks at each of the j levels.
        n = 2 ** 22
        for j in range(1, 6):
            s = sort(n, 2 ** j, grain=2 ** 12)
            self.assertEqual(s["data"], 8 * n * (j - 1 + 2 ** -j), j)

    def test_random_placement_reads_and_writes_every_element_once_a_level(self):
        # n = 2^k on 2^j ranks, leaves of 2^g: every cut is at a half, so there are k - g merge
        # levels. The leaves read every element and write it back (to the input or the scratch),
        # and each level reads both runs from one buffer and writes the other: 2n element moves
        # each, another rank's with probability p = 1 - 2^-j. A copy back would add 2n a level.
        k, g = 20, 12
        for j in range(0, 6):
            p = 1 - 2 ** -j
            s = sort(2 ** k, 2 ** j, grain=2 ** g, placement="random")
            expected = 8 * 2 * p * 2 ** k * (1 + k - g)
            self.assertAlmostEqual(s["data"], expected, delta=1e-9 * expected + 1e-6, msg=j)

    def test_random_placement_moves_more_than_owner_placement(self):
        for ranks in [2, 16]:
            self.assertGreater(sort(10 ** 6, ranks, placement="random")["moved"],
                               sort(10 ** 6, ranks)["moved"])


class ScalingTest(unittest.TestCase):
    def test_two_ranks_take_less_time_than_one_with_the_default_costs(self):
        for network in ["machine", "paper"]:
            costs = global_sim.costs_for(network)
            self.assertLess(reduce(10 ** 8, 2, costs)["time"], reduce(10 ** 8, 1, costs)["time"])
            for placement in ["owner", "random"]:
                self.assertLess(sort(10 ** 7, 2, costs, placement=placement)["time"],
                                sort(10 ** 7, 1, costs, placement=placement)["time"])

    def test_efficiency_lies_between_0_and_1(self):
        for network in ["machine", "paper"]:
            costs = global_sim.costs_for(network)
            for ranks in [1, 2, 3, 16, 100]:
                e = efficiency(reduce(10 ** 7, ranks, costs), ranks)
                self.assertTrue(in_0_1(e), (network, ranks, e))
                for placement in ["owner", "random"]:
                    e = efficiency(sort(10 ** 6, ranks, costs, placement=placement), ranks)
                    self.assertTrue(in_0_1(e), (network, ranks, placement, e))

    def test_a_costlier_network_lowers_efficiency(self):
        slow = global_sim.costs_for(bandwidth_gbs=0.1, latency_us=100)
        self.assertLess(efficiency(reduce(10 ** 7, 16, slow), 16),
                        efficiency(reduce(10 ** 7, 16), 16))
        self.assertLess(efficiency(sort(10 ** 6, 16, slow), 16), efficiency(sort(10 ** 6, 16), 16))


if __name__ == "__main__":
    unittest.main()
