// tine::mpi::global_vector, global_span and checkout, on 1 to 4 ranks:
// - vectors of 0, 1, odd, prime and 10^6 elements filled by a fork-join tree of write checkouts
//   (leaves of a few elements: most of them held by another rank than the leaf's), then read
//   back by another tree of read checkouts, incremented in place with read_write checkouts, and
//   read again: each value against its closed form;
// - random fork-join trees that write disjoint ranges and, after each join, read the whole range
//   their children wrote and check it (what children wrote, seen by the parent after the join,
//   wherever each ran);
// - a strand that writes a slice, checks it in and then forks a child reading every slice it
//   wrote so far, slice after slice, round after round (new values each round): each child sees
//   them, wherever the strand's continuation and the child ran (counted; a steal is not required);
// - misuse: a subspan past the end throws std::out_of_range, a checkout of a span whose vector
//   was destroyed throws std::logic_error, a vector made inside a task throws std::logic_error;
// - a direct pointer where the elements are the rank's own, a copy where they are not;
// - elements that are trivially copyable but not default-constructible, and over-aligned.
#include <tine/distributed/distributed.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>

#include "tests/distributed/mpi_check.hpp"

namespace {

using tine::mpi::global_span;

std::uint64_t value_at(std::uint64_t i) { return i * 2654435761u + 7; }

// Writes value_at(offset + i) + add into every element, `leaf` at a time.
tine::task<void> fill(global_span<std::uint64_t> s, std::uint64_t leaf, std::uint64_t add) {
  if (s.size() <= leaf) {
    auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = value_at(s.offset() + i) + add;
    }
    co_return;
  }
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(fill, l, leaf, add);
  co_await tine::call(fill, r, leaf, add);
  co_await tine::join();
}

// The number of elements that differ from value_at(offset + i) + add.
tine::task<std::uint64_t> count_wrong(global_span<const std::uint64_t> s, std::uint64_t leaf,
                                      std::uint64_t add) {
  if (s.size() <= leaf) {
    auto in = co_await tine::mpi::checkout(s);
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      wrong += in[i] != value_at(s.offset() + i) + add ? 1 : 0;
    }
    co_return wrong;
  }
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(&a, count_wrong, l, leaf, add);
  co_await tine::call(&b, count_wrong, r, leaf, add);
  co_await tine::join();
  co_return a + b;
}

tine::task<void> increment(global_span<std::uint64_t> s, std::uint64_t leaf) {
  if (s.size() <= leaf) {
    auto io = co_await tine::mpi::checkout(s);  // read_write
    for (std::uint64_t& x : io) {
      ++x;
    }
    co_return;
  }
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(increment, l, leaf);
  co_await tine::call(increment, r, leaf);
  co_await tine::join();
}

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ULL;
  return x ^ (x >> 29);
}

// Splits at a pseudo-random point into two to four parts, writes the leaves, and after each
// join reads back everything its children wrote. Returns the number of wrong elements seen.
tine::task<std::uint64_t> random_tree(global_span<std::uint64_t> s, std::uint64_t seed) {
  if (s.size() <= 3 + seed % 40) {
    auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = mix(s.offset() + i);
    }
    co_return 0;
  }
  const std::uint64_t parts = 2 + seed % 3;
  std::uint64_t wrong[4] = {0, 0, 0, 0};
  global_span<std::uint64_t> rest = s;
  for (std::uint64_t p = 0; p + 1 < parts; ++p) {
    const std::uint64_t cut = 1 + mix(seed + p) % (rest.size() - (parts - p - 1));
    auto [part, after] = rest.split(cut);
    co_await tine::fork(&wrong[p], random_tree, part, mix(seed * 4 + p));
    rest = after;
  }
  co_await tine::call(&wrong[parts - 1], random_tree, rest, mix(seed * 4 + parts));
  co_await tine::join();
  auto all = co_await tine::mpi::checkout(global_span<const std::uint64_t>(s));
  std::uint64_t here = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    here += all[i] != mix(s.offset() + i) ? 1 : 0;
  }
  co_return wrong[0] + wrong[1] + wrong[2] + wrong[3] + here;
}

// What the children of write_then_fork saw: elements not as written, children that checked,
// and children that read a slice written on another rank than theirs.
struct seen {
  std::uint64_t wrong = 0;
  std::uint64_t checked = 0;
  std::uint64_t elsewhere = 0;
  void add(const seen& o) {
    wrong += o.wrong;
    checked += o.checked;
    elsewhere += o.elsewhere;
  }
};

std::uint64_t in_round(std::uint64_t i, std::uint64_t round) { return mix(i) ^ (round << 40); }

// A child forked after its parent wrote `s` (and checked it in): busy for a moment, so that
// the parent's continuation may be taken by another rank meanwhile, then reads `s`. `writers`:
// the ranks (a bit each) that wrote the slices in `s`.
tine::task<seen> read_back(global_span<const std::uint64_t> s, std::uint64_t round,
                           std::uint64_t writers) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
  while (std::chrono::steady_clock::now() < until) {
  }
  auto in = co_await tine::mpi::checkout(s);
  seen r;
  for (std::size_t i = 0; i < in.size(); ++i) {
    r.wrong += in[i] != in_round(s.offset() + i, round) ? 1 : 0;
  }
  r.checked = 1;
  r.elsewhere = (writers & ~(std::uint64_t{1} << tine_test::my_rank)) != 0 ? 1 : 0;
  co_return r;
}

constexpr std::uint64_t slices = 16;

// Writes `s` slice by slice, each checked in before the fork of a child that reads every slice
// written so far; after the join, reads all of it itself.
tine::task<seen> write_then_fork(global_span<std::uint64_t> s, std::uint64_t round) {
  const std::uint64_t per = s.size() / slices;
  seen children[slices];
  std::uint64_t writers = 0;
  for (std::uint64_t k = 0; k < slices; ++k) {
    {
      const global_span<std::uint64_t> slice = s.subspan(k * per, per);
      auto out = co_await tine::mpi::checkout(slice, tine::mpi::access::write);
      for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = in_round(slice.offset() + i, round);
      }
    }  // checked in: before the fork, as the rules ask
    writers |= std::uint64_t{1} << tine_test::my_rank;  // the rank this strand runs on now
    co_await tine::fork(&children[k], read_back, s.subspan(0, (k + 1) * per), round, writers);
  }
  co_await tine::join();
  seen all;
  for (const seen& c : children) {
    all.add(c);
  }
  auto in = co_await tine::mpi::checkout(global_span<const std::uint64_t>(s));
  for (std::size_t i = 0; i < in.size(); ++i) {
    all.wrong += in[i] != in_round(s.offset() + i, round) ? 1 : 0;
  }
  co_return all;
}

tine::task<seen> write_then_fork_rounds(global_span<std::uint64_t> s, std::uint64_t rounds) {
  seen all;
  for (std::uint64_t round = 1; round <= rounds; ++round) {
    seen one;
    co_await tine::call(&one, write_then_fork, s, round);
    all.add(one);
  }
  co_return all;
}

// The example of docs/distributed.md, "Global memory".
// [docs:global-sum]
tine::task<double> sum_range(tine::mpi::global_span<const double> s) {
  if (s.size() <= 4096) {
    auto local = co_await tine::mpi::checkout(s);  // read-only: a pointer, or a copy
    co_return std::accumulate(local.begin(), local.end(), 0.0);
  }
  double a = 0;
  double b = 0;
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(&a, sum_range, l);
  co_await tine::call(&b, sum_range, r);
  co_await tine::join();
  co_return a + b;
}

tine::task<void> set_to_index(tine::mpi::global_span<double> s) {
  if (s.size() <= 4096) {
    auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<double>(s.offset() + i);
    }
    co_return;  // the view ends: its elements are written back where they are held
  }
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(set_to_index, l);
  co_await tine::call(set_to_index, r);
  co_await tine::join();
}
// [docs:global-sum end]

// An element type that is trivially copyable but has no default constructor, over-aligned.
struct alignas(32) point {
  point(std::int64_t x_, std::int64_t y_) : x(x_), y(y_) {}
  std::int64_t x;
  std::int64_t y;
};

tine::task<void> set_points(global_span<point> s) {
  if (s.size() <= 5) {
    auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = point(static_cast<std::int64_t>(s.offset() + i), -1);
    }
    co_return;
  }
  auto [l, r] = s.split(s.size() / 2);
  co_await tine::fork(set_points, l);
  co_await tine::call(set_points, r);
  co_await tine::join();
}

// The number of points not where set_points put them (a whole-span checkout: copied when the
// span is not all this rank's).
tine::task<std::uint64_t> misplaced_points(global_span<const point> s) {
  auto in = co_await tine::mpi::checkout(s);
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool aligned = reinterpret_cast<std::uintptr_t>(&in[i]) % alignof(point) == 0;
    wrong +=
        in[i].x == static_cast<std::int64_t>(s.offset() + i) && in[i].y == -1 && aligned ? 0 : 1;
  }
  co_return wrong;
}

// Whether a checkout of `s` copied its elements (false: a pointer to a block mapped here).
tine::task<int> copied(global_span<const std::uint64_t> s) {
  auto in = co_await tine::mpi::checkout(s);
  co_return in.copied() ? 1 : 0;
}

// global_span::in_place on the rank that runs the root (rank 0).
tine::task<bool> in_place_on_root(global_span<const std::uint64_t> s) { co_return s.in_place(); }

tine::task<std::uint64_t> count_nonzero(global_span<const std::uint64_t> s) {
  auto in = co_await tine::mpi::checkout(s);
  std::uint64_t nonzero = 0;
  for (const std::uint64_t x : in) {
    nonzero += x != 0 ? 1 : 0;
  }
  co_return nonzero;
}

tine::mpi_pool<>* the_pool = nullptr;

tine::task<int> make_inside_a_task() {
  try {
    tine::mpi::global_vector<int> inside(*the_pool, 10);
  } catch (const std::logic_error& e) {
    co_return std::string(e.what()).find("outside tasks") != std::string::npos ? 1 : 0;
  }
  co_return 0;
}

tine::task<int> checkout_throws(global_span<const std::uint64_t> s) {
  try {
    auto in = co_await tine::mpi::checkout(s);
  } catch (const std::logic_error& e) {
    co_return std::string(e.what()).find("does not exist") != std::string::npos ? 1 : 0;
  }
  co_return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  {
    tine::mpi_pool pool({.workers_per_rank = 2});
    the_pool = &pool;
    const int ranks = pool.size();
    const std::uint64_t none = 0;
    for (const std::uint64_t n : {0ULL, 1ULL, 7ULL, 1009ULL, 1000000ULL}) {
      tine::mpi::global_vector<std::uint64_t> v(pool, n);
      const global_span<std::uint64_t> s = v.span();
      const global_span<const std::uint64_t> cs = s;
      CHECK(v.size() == n && s.size() == n && cs.size() == n);
      CHECK(tine::sync_wait(pool, count_nonzero, cs) == 0);  // elements start zeroed
      const std::uint64_t leaf = n < 5000 ? 3 : 4096;
      tine::sync_wait(pool, fill, s, leaf, none);
      CHECK(tine::sync_wait(pool, count_wrong, cs, leaf, none) == 0);
      tine::sync_wait(pool, increment, s, leaf);
      CHECK(tine::sync_wait(pool, count_wrong, cs, leaf, std::uint64_t{1}) == 0);
      CHECK(tine::sync_wait(pool, count_wrong, cs, leaf, none) == n);
    }
    {
      tine::mpi::global_vector<std::uint64_t> v(pool, 50000);
      for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        CHECK(tine::sync_wait(pool, random_tree, v.span(), seed) == 0);
      }
      // Rank 0 runs the root: its own block is used in place; another rank's too when that
      // rank shares its machine (as every rank does here, unless the test is told to lay the
      // ranks out as on several machines), else it is copied, as is a range over two blocks.
      const global_span<const std::uint64_t> all = v;
      const global_span<const std::uint64_t> last = all.subspan(all.size() - 10, 10);
      CHECK(tine::sync_wait(pool, in_place_on_root, all.subspan(0, 10)));
      CHECK(!all.subspan(0, 0).in_place());
      CHECK(tine::sync_wait(pool, copied, all.subspan(0, 10)) == 0);
      if (ranks > 1) {
        const bool one_machine = std::getenv("MPIR_CVAR_NOLOCAL") == nullptr &&
                                 std::getenv("TINE_MPI_RANKS_PER_MACHINE") == nullptr;
        CHECK(tine::sync_wait(pool, in_place_on_root, last) == one_machine);
        CHECK(tine::sync_wait(pool, copied, last) == (one_machine ? 0 : 1));
        CHECK(!all.in_place());
        CHECK(tine::sync_wait(pool, copied, all.subspan(0, all.size())) == 1);
      }
      bool threw = false;
      try {
        (void)all.subspan(49990, 11);
      } catch (const std::out_of_range& e) {
        threw = std::string(e.what()).find("[49990, 49990 + 11) of a span of 50000") !=
                std::string::npos;
      }
      CHECK(threw);
    }
    {
      // Slices of 64 elements, so that with several ranks the children's reads cross blocks
      // (and, laid out as several machines, go through the cache, whose lines of earlier rounds
      // must not be served).
      tine::mpi::global_vector<std::uint64_t> v(pool, slices * 64);
      const std::uint64_t rounds = 8;
      const seen r = tine::sync_wait(pool, write_then_fork_rounds, v.span(), rounds);
      CHECK(r.wrong == 0);
      CHECK(r.checked == rounds * slices);
      if (tine_test::my_rank == 0) {
        std::printf("%d rank(s): %lu of %lu children read a slice written on another rank\n", ranks,
                    static_cast<unsigned long>(r.elsewhere), static_cast<unsigned long>(r.checked));
      }
    }
    {
      // [docs:global-sum-use]
      tine::mpi::global_vector<double> v(pool, 100'000);  // collective: blocks on every rank
      tine::sync_wait(pool, set_to_index, v.span());      // collective, as always
      const double sum = tine::sync_wait(pool, sum_range, v.span());  // every rank gets it
      // [docs:global-sum-use end]
      CHECK(sum == 99'999.0 * 100'000.0 / 2);
    }
    {
      tine::mpi::global_vector<point> points(pool, 333);
      tine::sync_wait(pool, set_points, points.span());
      CHECK(tine::sync_wait(pool, misplaced_points, points.span()) == 0);
    }
    global_span<const std::uint64_t> dangling;
    {
      tine::mpi::global_vector<std::uint64_t> gone(pool, 100);
      dangling = gone;
    }
    CHECK(tine::sync_wait(pool, checkout_throws, dangling) == 1);
    CHECK(tine::sync_wait(pool, make_inside_a_task) == 1);
    if (tine_test::my_rank == 0) {
      std::printf("%d rank(s): %lu steals across ranks\n", ranks,
                  static_cast<unsigned long>(pool.counters().steals));
    }
  }
  return tine_test::finish("global_vector_test");
}
