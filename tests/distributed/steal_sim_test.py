"""Checks of tools/steal_sim.py, the simulator behind docs/distributed_projection.md: the tree's
size, the traversal's bookkeeping, and that a simulated run visits every node exactly once and
takes a time between the ideal and the serial one plus its overheads."""
import unittest

from tools import steal_sim


def run(ranks, depth=8, branching=4, work_ns=100.0, steal_us=5.0, fail_us=1.0, join_us=1.0,
        seed=1, threads=1, one_thief=False):
    tree = steal_sim.Tree(branching, depth)
    t, ok, bad, visited = steal_sim.simulate(ranks, tree, work_ns, steal_us, fail_us, join_us, seed,
                                             threads, 0.5, 0.05, one_thief)
    return tree, t, ok, bad, visited


class TreeTest(unittest.TestCase):
    def test_a_full_tree_has_the_geometric_sum_of_nodes(self):
        for b, d in [(1, 0), (1, 5), (2, 10), (4, 8), (7, 3)]:
            expected = d + 1 if b == 1 else (b ** (d + 1) - 1) // (b - 1)
            self.assertEqual(steal_sim.Tree(b, d).nodes(), expected, (b, d))

    def test_advancing_in_steps_visits_what_one_step_does(self):
        tree = steal_sim.Tree(3, 6)
        whole = [[0, 1]]
        steps = [[0, 1]]
        for n in [1, 2, 5, 17, 100, 333]:
            steal_sim.advance(tree, steps, n)
        steal_sim.advance(tree, whole, 1 + 2 + 5 + 17 + 100 + 333)
        self.assertEqual(steps, whole)
        self.assertEqual(steal_sim.remaining(tree, steps), tree.nodes() - 458)

    def test_advancing_past_the_end_empties_the_work(self):
        tree = steal_sim.Tree(2, 4)
        pending = [[0, 1]]
        steal_sim.advance(tree, pending, tree.nodes() + 10)
        self.assertEqual(pending, [])


class SimulationTest(unittest.TestCase):
    def test_one_rank_runs_the_serial_time_and_never_steals(self):
        tree, t, ok, bad, visited = run(1)
        self.assertAlmostEqual(t, tree.nodes() * 100e-9, delta=1e-12)
        self.assertEqual((ok, bad, visited), (0, 0, tree.nodes()))

    def test_every_node_is_visited_exactly_once(self):
        for ranks in [2, 3, 8, 64]:
            for seed in [1, 2, 3]:
                tree, _, _, _, visited = run(ranks, depth=9, seed=seed)
                self.assertEqual(visited, tree.nodes(), (ranks, seed))

    def test_time_lies_between_the_ideal_and_serial_plus_overheads(self):
        for ranks in [2, 4, 16]:
            tree, t, ok, bad, _ = run(ranks, depth=9)
            serial = tree.nodes() * 100e-9
            self.assertGreaterEqual(t, serial / ranks)
            self.assertLessEqual(t, serial + ok * (5e-6 + 1e-6) + bad * 1e-6)
            self.assertGreater(ok, 0, "a multi-rank run must steal")

    def test_cheap_steals_scale_and_dear_ones_do_not(self):
        tree, t, _, _, _ = run(4, depth=9, steal_us=0.1, fail_us=0.01, join_us=0.0)
        cheap = tree.nodes() * 100e-9 / (4 * t)
        tree, t, _, _, _ = run(4, depth=9, steal_us=1e5, fail_us=1e3, join_us=0.0)
        dear = tree.nodes() * 100e-9 / (4 * t)
        self.assertGreater(cheap, 0.95)
        self.assertLess(dear, 0.5)

    def test_the_node_in_progress_is_never_taken(self):
        self.assertIsNone(steal_sim.take_oldest([]))
        self.assertIsNone(steal_sim.take_oldest([[3, 1]]))
        one_level = [[3, 4]]
        self.assertEqual(steal_sim.take_oldest(one_level), [3, 3])
        self.assertEqual(one_level, [[3, 1]])
        two_levels = [[1, 2], [2, 4]]
        self.assertEqual(steal_sim.take_oldest(two_levels), [1, 2])
        self.assertEqual(two_levels, [[2, 4]])

    def test_ranks_of_several_threads_visit_every_node_exactly_once(self):
        for ranks, threads in [(1, 4), (2, 2), (3, 4), (8, 8)]:
            for seed in [1, 2]:
                tree, t, ok, _, visited = run(ranks, depth=9, seed=seed, threads=threads)
                self.assertEqual(visited, tree.nodes(), (ranks, threads, seed))
                self.assertGreaterEqual(t, tree.nodes() * 100e-9 / (ranks * threads))
                if ranks == 1:
                    self.assertEqual(ok, 0, "one rank steals only within itself")
                else:
                    self.assertGreater(ok, 0, "several ranks must steal across ranks")

    def test_threads_within_a_rank_scale_where_ranks_alone_would_not(self):
        # Steals across ranks so dear that two ranks of one worker gain little, while four
        # workers of one rank, stealing at the local cost, come close to four times one.
        tree, t1, _, _, _ = run(1, depth=9)
        _, t2, _, _, _ = run(2, depth=9, steal_us=2e3, fail_us=2e2)
        _, t4, _, _, _ = run(1, depth=9, threads=4)
        self.assertLess(t1 / t2, 1.6)
        self.assertGreater(t1 / t4, 3.5)

    def test_one_thief_per_rank_visits_every_node_and_refills_ranks_more_slowly(self):
        tree, one, _, _, visited = run(8, depth=9, threads=8, one_thief=True)
        self.assertEqual(visited, tree.nodes())
        _, many, _, _, _ = run(8, depth=9, threads=8)
        self.assertGreater(one, many)

    def test_a_seed_repeats_its_run(self):
        self.assertEqual(run(16, depth=9, seed=7)[1:], run(16, depth=9, seed=7)[1:])


if __name__ == "__main__":
    unittest.main()
