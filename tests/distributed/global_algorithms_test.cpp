// tine's algorithms over global spans on an mpi_pool, on 1 to 4 ranks, against the same
// algorithm from the standard library on a std::vector holding the same values (every rank
// computes that reference itself):
// - for_each, fill, map (also in place), copy, reduce (also with a non-commutative accumulator,
//   which checks the order of the fold), transform_reduce over one and two inputs, count_if,
//   count, find_if, any_of / all_of / none_of, min_element and max_element (first of equals,
//   with a comparison and a projection), inclusive_scan and exclusive_scan (with and without
//   init, non-commutative, in place), on spans of 0, 1, 7, 1009 and 10^6 elements (the
//   small ones also as an odd subspan and with leaves of 3 elements, cut at the ranks' block
//   boundaries);
// - the task form inside a task: reduce, count_if, find_if, min_element, map, inclusive_scan and
//   for_each in one task, each against the standard library (also on 0, 1, 9 and 4099 elements,
//   on 3 and 4 ranks too, where one collective call checks them all: "quick");
// - exceptions from element functions reaching every rank with their type and message: a
//   for_each body, a reduce op, count_if's and find_if's predicates, a scan op, a map function,
//   and in the task form a reduce op, caught at its call and after a join; an output span too
//   short; an algorithm on a destroyed vector's span;
// - tine::mpi::traffic(): nothing copied on one rank, copies both ways on more.
// Vectors are compared by a digest of their bytes computed by one task that checks out the whole
// span (its root runs on rank 0 and never forks, so no rank's copy goes stale).
#include <tine/distributed/distributed.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/distributed/global_digest.hpp"
#include "tests/distributed/mpi_check.hpp"

namespace {

using tine::mpi::global_span;
using tine::mpi::global_vector;
using value = std::int64_t;

value initial(std::uint64_t i) {
  std::uint64_t x = i * 0x9e3779b97f4a7c15ULL;
  x ^= x >> 29;
  return static_cast<value>(x % 1000) - 500;  // repeats: first-of-equals matters
}

using tine_test::digest;
using tine_test::digest_of;

tine::task<void> set_initial(global_span<value> s) {
  auto out = co_await tine::mpi::checkout(s, tine::mpi::access::write);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = initial(s.offset() + i);
  }
}

// A 2x2 matrix product modulo a prime: associative, not commutative, trivially copyable.
struct mat {
  std::uint64_t a = 1, b = 0, c = 0, d = 1;
  friend bool operator==(const mat&, const mat&) = default;
};
constexpr std::uint64_t prime = 1'000'000'007;
mat times(const mat& x, const mat& y) {
  return {(x.a * y.a + x.b * y.c) % prime, (x.a * y.b + x.b * y.d) % prime,
          (x.c * y.a + x.d * y.c) % prime, (x.c * y.b + x.d * y.d) % prime};
}
struct mat_times {
  mat operator()(const mat& x, const mat& y) const { return times(x, y); }
};
struct to_mat {
  mat operator()(value x) const {
    const auto u = static_cast<std::uint64_t>(x + 500);
    return {u + 1, 1, u % 7, 2};
  }
};

struct triple_plus_one {
  void operator()(value& x) const { x = 3 * x + 1; }
};
struct square {
  value operator()(value x) const { return x * x; }
};
struct is_positive {
  bool operator()(value x) const { return x > 0; }
};
struct magnitude {
  value operator()(value x) const { return x < 0 ? -x : x; }
};
struct throw_at {
  value bad;
  void operator()(value& x) const {
    if (x == bad) {
      throw std::runtime_error("a bad element");
    }
  }
};
struct equals {
  value wanted;
  bool operator()(value x) const { return x == wanted; }
};

// Element functions that throw: `Error` with `what`, at the element `bad` or (the folds, on a
// vector of ones) once a partial sum passes `most`, which some fold of any shape must.
template <typename Error>
struct predicate_throwing_at {
  value bad;
  const char* what;
  bool operator()(value x) const {
    if (x == bad) {
      throw Error(what);
    }
    return false;  // find_if's leaves then look at every element
  }
};
struct square_throwing_at {
  value bad;
  value operator()(value x) const {
    if (x == bad) {
      throw std::length_error("a bad element to map");
    }
    return x * x;
  }
};
template <typename Error>
struct plus_up_to {
  value most;
  const char* what;
  value operator()(value a, value b) const {
    if (a + b > most) {
      throw Error(what);
    }
    return a + b;
  }
};

// The task form of several algorithms in one task, as a user writes it, on `s` set to its
// initial values first: the reads forked together, then the writes one after another, each read
// back (a digest of its output) after its join. One collective call checks them all.
struct in_task_results {
  std::uint64_t positives = 0;
  std::uint64_t first_at = 0;
  std::uint64_t min_at = 0;
  value sum = 0;
  std::uint64_t mapped = 0;
  std::uint64_t scanned = 0;
  std::uint64_t after_for_each = 0;
};

tine::task<in_task_results> algorithms_in_task(global_span<value> s, global_span<value> out,
                                               value wanted, tine::grain g) {
  const global_span<const value> cs = s;
  const global_span<const value> cout = out;
  in_task_results r;
  co_await tine::call(set_initial, s);
  co_await tine::fork(&r.positives, tine::async::count_if, cs, is_positive{}, g);
  co_await tine::fork(&r.first_at, tine::async::find_if, cs, equals{wanted}, g);
  co_await tine::fork(&r.min_at, tine::async::min_element, cs, std::ranges::less{}, std::identity{},
                      g);
  co_await tine::call(&r.sum, tine::async::reduce, cs, value{0}, std::plus<>{}, g);
  co_await tine::join();
  co_await tine::call(tine::async::map, cs, out, square{}, g);
  co_await tine::join();
  co_await tine::call(&r.mapped, digest_of<value>, cout);
  co_await tine::call(tine::async::inclusive_scan, cs, out, std::plus<>{}, g);
  co_await tine::join();
  co_await tine::call(&r.scanned, digest_of<value>, cout);
  co_await tine::call(tine::async::for_each, s, triple_plus_one{}, g);
  co_await tine::join();
  co_await tine::call(&r.after_for_each, digest_of<value>, cs);
  co_return r;
}

// The task form's exception inside a task, on 1009 ones: a reduce whose op throws past 500,
// caught at its call (no fork before it), then again after a join (the call's exception waits
// for it), its sibling's reduce of 504 ones not throwing. 1 for each caught with its type and
// message.
tine::task<int> reduce_throws_in_task(global_span<const value> ones) {
  const plus_up_to<std::overflow_error> op{500, "a sum over 500"};
  int caught = 0;
  value r = 0;
  try {
    co_await tine::call(&r, tine::async::reduce, ones, value{0}, op, tine::grain{10});
  } catch (const std::overflow_error& e) {
    caught += std::string(e.what()) == "a sum over 500" ? 1 : 0;
  }
  value l = 0;
  try {
    auto [left, right] = ones.split(ones.size() / 2);
    co_await tine::fork(&l, tine::async::reduce, left, value{0}, std::plus<>{}, tine::grain{10});
    co_await tine::call(&r, tine::async::reduce, right, value{0}, op, tine::grain{10});
    co_await tine::join();
  } catch (const std::overflow_error& e) {
    caught += std::string(e.what()) == "a sum over 500" && l == 504 ? 1 : 0;
  }
  co_return caught;
}

// Runs algorithms_in_task on `s` and `out` (as long), and checks every result against the
// standard library's on every rank.
template <typename Pool>
void check_in_task(Pool& pool, global_span<value> s, global_span<value> out, tine::grain g) {
  const std::uint64_t n = s.size();
  std::vector<value> ref(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    ref[i] = initial(s.offset() + i);
  }
  const value wanted = n > 0 ? ref[n / 2] : 0;
  const in_task_results r = tine::sync_wait(pool, algorithms_in_task, s, out, wanted, g);
  const auto index = [&](auto it) { return static_cast<std::uint64_t>(it - ref.begin()); };
  CHECK(r.positives ==
        static_cast<std::uint64_t>(std::count_if(ref.begin(), ref.end(), is_positive{})));
  CHECK(r.first_at == index(std::find_if(ref.begin(), ref.end(), equals{wanted})));
  CHECK(r.min_at == index(std::min_element(ref.begin(), ref.end())));
  CHECK(r.sum == std::reduce(ref.begin(), ref.end()));
  std::vector<value> want(n);
  std::transform(ref.begin(), ref.end(), want.begin(), square{});
  CHECK(r.mapped == digest(want));
  std::inclusive_scan(ref.begin(), ref.end(), want.begin());
  CHECK(r.scanned == digest(want));
  std::for_each(ref.begin(), ref.end(), triple_plus_one{});
  CHECK(r.after_for_each == digest(ref));
}

// Exceptions from element functions: each reaches every rank's call with its type and message.
// `ones` holds 1009 ones, `w` initial values; `bad` is one of them.
template <typename Pool>
void check_exceptions(Pool& pool, global_span<value> ones, global_span<value> w, value bad) {
  const tine::grain g{10};
  const auto says = [](const std::exception& e, const char* what) {
    return std::string(e.what()) == what;
  };
  try {
    (void)tine::reduce(pool, ones, value{0}, plus_up_to<std::overflow_error>{500, "a sum over 500"},
                       g);
    CHECK(false);
  } catch (const std::overflow_error& e) {
    CHECK(says(e, "a sum over 500"));
  }
  CHECK(tine::sync_wait(pool, reduce_throws_in_task, global_span<const value>(ones)) == 2);
  try {
    (void)tine::count_if(
        pool, w, predicate_throwing_at<std::domain_error>{bad, "a bad element to count"}, g);
    CHECK(false);
  } catch (const std::domain_error& e) {
    CHECK(says(e, "a bad element to count"));
  }
  try {
    (void)tine::find_if(pool, w,
                        predicate_throwing_at<std::out_of_range>{bad, "a bad element to find"}, g);
    CHECK(false);
  } catch (const std::out_of_range& e) {
    CHECK(says(e, "a bad element to find"));
  }
  try {
    tine::inclusive_scan(pool, ones, ones, plus_up_to<std::range_error>{500, "a prefix over 500"},
                         g);
    CHECK(false);
  } catch (const std::range_error& e) {
    CHECK(says(e, "a prefix over 500"));
  }
  try {
    tine::map(pool, global_span<const value>(w), ones, square_throwing_at{bad}, g);
    CHECK(false);
  } catch (const std::length_error& e) {
    CHECK(says(e, "a bad element to map"));
  }
}

// The task form, inside a task: the sum of a subspan and of the rest, by two algorithm calls.
// [docs:global-algorithms-task]
tine::task<std::int64_t> sum_in_task(tine::mpi::global_span<const std::int64_t> s) {
  auto [l, r] = s.split(s.size() / 3);
  std::int64_t a = 0;
  std::int64_t b = 0;
  co_await tine::fork(&a, tine::async::reduce, l, std::int64_t{0}, std::plus<>{});
  co_await tine::call(&b, tine::async::reduce, r, std::int64_t{0}, std::plus<>{});
  co_await tine::join();
  co_return a + b;
}
// [docs:global-algorithms-task end]

template <typename Pool>
void check_span(Pool& pool, global_span<value> s, tine::grain g) {
  const std::uint64_t n = s.size();
  std::vector<value> ref(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    ref[i] = initial(s.offset() + i);
  }
  const global_span<const value> cs = s;
  tine::sync_wait(pool, set_initial, s);
  CHECK(tine::sync_wait(pool, digest_of<value>, cs) == digest(ref));

  // Folds and searches on the initial values.
  CHECK(tine::reduce(pool, s, value{0}, std::plus<>{}, g) == std::reduce(ref.begin(), ref.end()));
  CHECK(tine::reduce(pool, cs) == std::reduce(ref.begin(), ref.end()));
  const value max_init = -1000;
  CHECK(tine::reduce(
            pool, s, max_init, [](value x, value y) { return std::max(x, y); }, g) ==
        std::accumulate(ref.begin(), ref.end(), max_init,
                        [](value x, value y) { return std::max(x, y); }));
  CHECK(tine::transform_reduce(pool, s, value{5}, std::plus<>{}, square{}, g) ==
        std::transform_reduce(ref.begin(), ref.end(), value{5}, std::plus<>{}, square{}));
  CHECK(tine::transform_reduce(pool, cs, mat{}, mat_times{}, to_mat{}, g) ==
        std::transform_reduce(ref.begin(), ref.end(), mat{}, mat_times{}, to_mat{}));
  CHECK(tine::count_if(pool, s, is_positive{}, g) ==
        static_cast<std::uint64_t>(std::count_if(ref.begin(), ref.end(), is_positive{})));
  CHECK(tine::count(pool, s, value{-3}, g) ==
        static_cast<std::uint64_t>(std::count(ref.begin(), ref.end(), value{-3})));
  for (const value wanted : {value{-500}, value{499}, value{1000}}) {
    const auto pred = [wanted](value x) { return x == wanted; };
    const auto at =
        static_cast<std::uint64_t>(std::find_if(ref.begin(), ref.end(), pred) - ref.begin());
    CHECK(tine::find_if(pool, s, pred, g) == at);
    CHECK(tine::any_of(pool, s, pred, g) == std::any_of(ref.begin(), ref.end(), pred));
    CHECK(tine::none_of(pool, cs, pred, g) == std::none_of(ref.begin(), ref.end(), pred));
    CHECK(tine::all_of(
              pool, s, [wanted](value x) { return x != wanted; }, g) ==
          std::none_of(ref.begin(), ref.end(), pred));
  }
  const auto index = [&](auto it) { return static_cast<std::uint64_t>(it - ref.begin()); };
  CHECK(tine::min_element(pool, s) == index(std::min_element(ref.begin(), ref.end())));
  CHECK(tine::max_element(pool, s, std::ranges::less{}, std::identity{}, g) ==
        index(std::max_element(ref.begin(), ref.end())));
  CHECK(tine::min_element(pool, cs, std::ranges::greater{}, magnitude{}, g) ==
        index(std::ranges::min_element(ref, std::ranges::greater{}, magnitude{})));
  CHECK(tine::max_element(pool, cs, std::ranges::less{}, magnitude{}, g) ==
        index(std::ranges::max_element(ref, std::ranges::less{}, magnitude{})));
  if (n > 0) {
    CHECK(tine::sync_wait(pool, sum_in_task, cs) == std::reduce(ref.begin(), ref.end()));
  }

  // Writes: to a second vector, in place, and back.
  global_vector<value> other(pool, n + 5);
  const global_span<value> out = other.span().subspan(2, n);
  tine::map(pool, cs, out, square{}, g);
  std::vector<value> squares(n);
  std::transform(ref.begin(), ref.end(), squares.begin(), square{});
  CHECK(tine::sync_wait(pool, digest_of<value>, global_span<const value>(out)) == digest(squares));
  CHECK(tine::transform_reduce(pool, s, out, value{0}, std::plus<>{}, std::multiplies<>{}, g) ==
        std::transform_reduce(ref.begin(), ref.end(), squares.begin(), value{0}));
  tine::for_each(pool, s, triple_plus_one{}, g);
  std::for_each(ref.begin(), ref.end(), triple_plus_one{});
  CHECK(tine::sync_wait(pool, digest_of<value>, cs) == digest(ref));
  tine::map(pool, s, s, magnitude{}, g);
  std::transform(ref.begin(), ref.end(), ref.begin(), magnitude{});
  CHECK(tine::sync_wait(pool, digest_of<value>, cs) == digest(ref));
  tine::copy(pool, s, out, g);
  CHECK(tine::sync_wait(pool, digest_of<value>, global_span<const value>(out)) == digest(ref));
  tine::fill(pool, out, 42, g);
  CHECK(tine::count(pool, other, value{42}) == n);
  CHECK(tine::count(pool, other, value{0}) == 5);  // around the subspan: untouched

  // Scans: into the second vector, with a non-commutative fold into a third, and in place.
  std::vector<value> scanned(n);
  std::inclusive_scan(ref.begin(), ref.end(), scanned.begin());
  tine::inclusive_scan(pool, cs, out, std::plus<>{}, g);
  CHECK(tine::sync_wait(pool, digest_of<value>, global_span<const value>(out)) == digest(scanned));
  std::inclusive_scan(ref.begin(), ref.end(), scanned.begin(), std::plus<>{}, value{-9});
  tine::inclusive_scan(pool, cs, out, std::plus<>{}, value{-9}, g);
  CHECK(tine::sync_wait(pool, digest_of<value>, global_span<const value>(out)) == digest(scanned));
  global_vector<mat> products(pool, n);
  std::vector<mat> want_products(n);
  std::transform(ref.begin(), ref.end(), want_products.begin(), to_mat{});
  std::exclusive_scan(want_products.begin(), want_products.end(), want_products.begin(),
                      mat{3, 1, 4, 1}, mat_times{});
  tine::map(pool, cs, products, to_mat{}, g);
  tine::exclusive_scan(pool, products, products, mat{3, 1, 4, 1}, mat_times{}, g);
  CHECK(tine::sync_wait(pool, digest_of<mat>, global_span<const mat>(products)) ==
        digest(want_products));
  std::exclusive_scan(ref.begin(), ref.end(), scanned.begin(), value{5});
  tine::exclusive_scan(pool, s, s, value{5}, std::plus<>{}, g);
  CHECK(tine::sync_wait(pool, digest_of<value>, cs) == digest(scanned));

  check_in_task(pool, s, out, g);
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  {
    tine::mpi_pool pool({.workers_per_rank = 2});
    // "quick" (the runs on 3 and 4 ranks of an oversubscribed machine, where every collective
    // call waits for the OS scheduler): 10^6 elements with automatic leaves, a subspan of 1009
    // with leaves of 3, and the small sizes' few calls; the other cases run on 1 and 2 ranks.
    const bool quick = argc > 1 && std::string(argv[1]) == "quick";
    // Empty, one element (on one rank), odd (9: one rank holds none on 4), prime (4099): the
    // task form, five collective calls each.
    for (const std::uint64_t n : {0ULL, 1ULL, 9ULL, 4099ULL}) {
      global_vector<value> v(pool, n);
      global_vector<value> out(pool, n);
      check_in_task(pool, v.span(), out.span(), tine::grain{2});
    }
    for (const std::uint64_t n : {0ULL, 1ULL, 7ULL, 1009ULL, 1000000ULL}) {
      if (quick && n != 1009 && n != 1000000) {
        continue;
      }
      global_vector<value> v(pool, n);
      if (!quick || n == 1000000) {
        check_span(pool, v.span(), tine::grain{});
      }
      if (n < 5000 && !quick) {
        check_span(pool, v.span(), tine::grain{3});
      }
      if (n >= 7 && n < 5000) {
        check_span(pool, v.span().subspan(3, n - 5), tine::grain{3});
      }
    }
    {
      // [docs:global-algorithms]
      tine::mpi::global_vector<double> v(pool, 1'000'000);  // collective
      tine::fill(pool, v, 2.0);                             // collective, as every call here
      tine::for_each(pool, v, [](double& x) { x = std::sqrt(x); });
      const double sum = tine::reduce(pool, v, 0.0, std::plus<>{});  // every rank gets it
      const std::uint64_t first_big = tine::find_if(pool, v, [](double x) { return x > 1.5; });
      // [docs:global-algorithms end]
      CHECK(std::abs(sum - 1'000'000 * std::sqrt(2.0)) < 1e-3);
      CHECK(first_big == v.size());
    }
    global_vector<value> v(pool, 1009);
    tine::fill(pool, v, 1);
    {
      // An exception from an element function reaches every rank; the vector stays usable.
      global_vector<value> w(pool, 1009);
      tine::sync_wait(pool, set_initial, w.span());
      const value bad = initial(600);
      std::string message;
      try {
        tine::for_each(pool, w, throw_at{bad}, tine::grain{10});
      } catch (const std::runtime_error& e) {
        message = e.what();
      }
      CHECK(message == "a bad element");
      CHECK(tine::count(pool, w, bad) > 0);
      // An output shorter than the input.
      message.clear();
      try {
        tine::copy(pool, w, v.span().subspan(0, 1008));
      } catch (const std::invalid_argument& e) {
        message = e.what();
      }
      CHECK(message ==
            "tine::copy on global spans: the second span has 1008 elements, fewer than the "
            "first's 1009");
      CHECK(tine::count(pool, v, value{1}) == 1009);
      check_exceptions(pool, v.span(), w.span(), bad);
    }
    // A span of a vector destroyed since.
    global_span<value> dangling;
    {
      global_vector<value> gone(pool, 10);
      dangling = gone;
    }
    std::string message;
    try {
      tine::fill(pool, dangling, 3);
    } catch (const std::logic_error& e) {
      message = e.what();
    }
    CHECK(message.find("does not exist") != std::string::npos);

    // The blocks of a rank's machine are used in place: on one rank nothing is ever copied; on
    // more, the digests alone (one task reading every element on rank 0) copy, and they move
    // bytes through MPI only when some rank is on another machine (or laid out as if).
    const tine::mpi::global_traffic t = tine::mpi::traffic();
    CHECK(t.checkouts > 0);
    if (pool.size() == 1) {
      CHECK(t.copied_checkouts == 0 && t.bytes_fetched == 0 && t.bytes_stored == 0);
    } else {
      const bool one_machine = std::getenv("MPIR_CVAR_NOLOCAL") == nullptr &&
                               std::getenv("TINE_MPI_RANKS_PER_MACHINE") == nullptr;
      CHECK(tine_test::sum_over_ranks(t.copied_checkouts) > 0);
      CHECK((tine_test::sum_over_ranks(t.bytes_fetched) > 0) != one_machine);
      CHECK((tine_test::sum_over_ranks(t.bytes_stored) > 0) != one_machine);
    }
  }
  return tine_test::finish("global_algorithms_test");
}
