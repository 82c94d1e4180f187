// tine as the backend of the standard's parallel scheduler: with
// //execution:parallel_scheduler_backend linked, stdexec::get_parallel_scheduler() runs on a
// tine pool (the process-wide one, given 3 workers here), from many threads at once; bulk,
// bulk_chunked and bulk_unchunked run as tine's loop, inside tine tasks, each index once;
// errors and stops reach the right channel; every started operation completes exactly once;
// the backend keeps its bookkeeping in the frontend's storage when it fits; and stdexec's
// run-time switch installs another backend and back.
// One translation unit: stdexec's headers are slow to compile.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <stdexec/execution.hpp>

#include <tine/core/core.hpp>
#include <tine/execution/parallel_scheduler_backend.hpp>
#include <tine/schedulers/lazy_pool.hpp>

#include "tests/core/watchdog.hpp"

namespace ex = stdexec;
namespace pr = stdexec::parallel_scheduler_replacement;
using namespace std::chrono_literals;

namespace {

using tine_tests::watchdog;

// Before anything asks for the parallel scheduler (statics of this unit are initialised before
// main): the process-wide pool gets a worker count the tests can recognise.
constexpr std::size_t pool_workers = 3;
const bool workers_chosen = [] {
  return ::setenv("TINE_PARALLEL_SCHEDULER_WORKERS", "3", 1) == 0;
}();

// The backend the parallel scheduler is using now, as tine's.
tine::execution::pool_backend& tine_backend() {
  const auto b = pr::query_parallel_scheduler_backend();
  auto* p = dynamic_cast<tine::execution::pool_backend*>(b.get());
  BOOST_REQUIRE(p != nullptr);
  return *p;  // the installed instance keeps it alive
}

// Whether the caller is in a tine task of `pool` (tine::current_scheduler() throws outside one).
bool in_task_of(tine::lazy_pool<>& pool) noexcept {
  try {
    return tine::current_scheduler() == tine::scheduler_ref(pool);
  } catch (const std::logic_error&) {
    return false;
  }
}

// A receiver that records how it was completed, with a stop source of its own.
struct record {
  std::atomic<int> values{0};
  std::atomic<int> errors{0};
  std::atomic<int> stops{0};
  ex::inplace_stop_source stop;
  int completions() const { return values.load() + errors.load() + stops.load(); }
};

struct recording_receiver {
  using receiver_concept = ex::receiver_t;
  record* r;
  struct env {
    record* r;
    ex::inplace_stop_token query(ex::get_stop_token_t) const noexcept {
      return r->stop.get_token();
    }
  };
  env get_env() const noexcept { return {r}; }
  // Not rvalue-qualified: stdexec's parallel bulk, at the version tested, completes a receiver
  // stopped before the loop as an lvalue.
  void set_value() noexcept { r->values.fetch_add(1); }
  void set_error(std::exception_ptr) noexcept { r->errors.fetch_add(1); }
  void set_stopped() noexcept { r->stops.fetch_add(1); }
};

// An operation connected to a recording_receiver and started, kept alive by its owner.
template <typename S>
struct started {
  ex::connect_result_t<S, recording_receiver> op;
  started(S s, record* r) : op(ex::connect(std::move(s), recording_receiver{r})) { ex::start(op); }
};
template <typename S>
std::unique_ptr<started<S>> start_recorded(S s, record* r) {
  return std::make_unique<started<S>>(std::move(s), r);
}

template <typename Pred>
bool wait_for(Pred pred, std::chrono::seconds limit = 30s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) {
      return false;
    }
    std::this_thread::sleep_for(50us);
  }
  return true;
}

// A frontend of our own, to drive the backend's protocol directly: no stop token, no
// allocator (its environment answers no query); counts its completions and the indices given.
struct test_proxy final : pr::bulk_item_receiver_proxy {
  std::atomic<int> values{0};
  std::atomic<int> errors{0};
  std::atomic<int> stops{0};
  std::vector<std::atomic<int>> hits;
  std::atomic<int> outside_task{0};
  tine::lazy_pool<>* pool;

  test_proxy(std::size_t n, tine::lazy_pool<>& p) : hits(n), pool(&p) {}
  int completions() const { return values.load() + errors.load() + stops.load(); }

  void set_value() noexcept override { values.fetch_add(1); }
  void set_error(std::exception_ptr) noexcept override { errors.fetch_add(1); }
  void set_stopped() noexcept override { stops.fetch_add(1); }
  void execute(std::size_t begin, std::size_t end) noexcept override {
    if (!in_task_of(*pool)) {
      outside_task.fetch_add(1);
    }
    for (std::size_t i = begin; i < end; ++i) {
      hits[i].fetch_add(1);
    }
  }

 protected:
  void __query_env(stdexec::__type_index, stdexec::__type_index, void*) const noexcept override {}
};

}  // namespace

BOOST_AUTO_TEST_CASE(get_parallel_scheduler_runs_on_a_tine_pool) {
  watchdog dog(60s);
  BOOST_REQUIRE(workers_chosen);
  auto sch = ex::get_parallel_scheduler();
  tine::execution::pool_backend& backend = tine_backend();
  BOOST_TEST(backend.pool().size() == pool_workers);
  BOOST_TEST((pr::query_parallel_scheduler_backend() == tine::execution::shared_pool_backend()));
  BOOST_TEST((sch == ex::get_parallel_scheduler()));

  const auto caller = std::this_thread::get_id();
  struct seen {
    bool worker;
    std::size_t workers;
    bool other_thread;
  };
  auto [s] =
      ex::sync_wait(ex::schedule(sch) | ex::then([caller] {
                      return seen{tine::current_worker() != nullptr, tine::current_worker_count(),
                                  std::this_thread::get_id() != caller};
                    }))
          .value();
  BOOST_TEST(s.worker);
  BOOST_TEST(s.workers == pool_workers);
  BOOST_TEST(s.other_thread);
  BOOST_TEST(tine::current_worker() == nullptr);  // the test's own thread is no worker
}

BOOST_AUTO_TEST_CASE(worker_count_from_the_environment) {
  const char* bad[] = {"0", "", "abc", "3x", "-2", " 3", "99999999999999999999999999"};
  for (const char* text : bad) {
    BOOST_REQUIRE(::setenv("TINE_PARALLEL_SCHEDULER_WORKERS", text, 1) == 0);
    BOOST_CHECK_EXCEPTION(
        tine::execution::parallel_scheduler_workers(), std::invalid_argument,
        [&](const std::invalid_argument& e) {
          const std::string what = e.what();
          return what.find("TINE_PARALLEL_SCHEDULER_WORKERS=\"" + std::string(text) + "\"") == 0 &&
                 what.find("positive decimal number") != std::string::npos;
        });
  }
  BOOST_REQUIRE(::setenv("TINE_PARALLEL_SCHEDULER_WORKERS", "5", 1) == 0);
  BOOST_TEST(tine::execution::parallel_scheduler_workers() == 5u);
  BOOST_REQUIRE(::unsetenv("TINE_PARALLEL_SCHEDULER_WORKERS") == 0);
  const unsigned h = std::thread::hardware_concurrency();
  BOOST_TEST(tine::execution::parallel_scheduler_workers() == (h == 0 ? 1u : h));
  BOOST_REQUIRE(::setenv("TINE_PARALLEL_SCHEDULER_WORKERS", "3", 1) == 0);
  // Read once, when the pool was made: the process-wide backend keeps its 3 workers.
  BOOST_TEST(tine_backend().pool().size() == pool_workers);
}

BOOST_AUTO_TEST_CASE(schedule_from_several_threads_at_once) {
  watchdog dog(120s);
  constexpr int threads = 4;
  constexpr int rounds = 300;
  std::atomic<long> sum{0};
  std::atomic<int> off_worker{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      auto sch = ex::get_parallel_scheduler();  // asked for concurrently, too
      for (int i = 0; i < rounds; ++i) {
        const long a = t * 100000L + i;
        auto job = [&off_worker](long v) {
          return ex::then([&off_worker, v] {
            if (tine::current_worker_count() != pool_workers) {
              off_worker.fetch_add(1);
            }
            return 2 * v;
          });
        };
        auto [x, y] =
            ex::sync_wait(ex::when_all(ex::schedule(sch) | job(a), ex::schedule(sch) | job(a + 1)))
                .value();
        if (x != 2 * a || y != 2 * (a + 1)) {  // Boost.Test's checks are for one thread
          wrong.fetch_add(1);
        }
        sum.fetch_add(x + y);
      }
    });
  }
  for (auto& t : ts) {
    t.join();
  }
  long expected = 0;
  for (int t = 0; t < threads; ++t) {
    for (int i = 0; i < rounds; ++i) {
      const long a = t * 100000L + i;
      expected += 2 * a + 2 * (a + 1);
    }
  }
  BOOST_TEST(sum.load() == expected);
  BOOST_TEST(wrong.load() == 0);
  BOOST_TEST(off_worker.load() == 0);
}

BOOST_AUTO_TEST_CASE(bulk_runs_as_tines_loop_each_index_once_inside_tasks) {
  watchdog dog(120s);
  auto sch = ex::get_parallel_scheduler();
  tine::lazy_pool<>& pool = tine_backend().pool();
  constexpr std::size_t n = 10000;
  auto hits = std::make_unique<std::atomic<int>[]>(n);
  std::atomic<int> outside{0};
  std::atomic<int> wrong_value{0};
  auto all_once = [&] {
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) {
      ok = ok && hits[i].exchange(0) == 1;
    }
    return ok;
  };
  auto note = [&](std::size_t i, int v) {
    hits[i].fetch_add(1);
    if (!in_task_of(pool)) {
      outside.fetch_add(1);
    }
    if (v != 7) {
      wrong_value.fetch_add(1);
    }
  };
  auto seven = [] { return 7; };

  // bulk: the predecessor's value by reference to every call, then sent on.
  auto [b] = ex::sync_wait(ex::schedule(sch) | ex::then(seven) |
                           ex::bulk(ex::par, n, [&](std::size_t i, int& v) { note(i, v); }))
                 .value();
  BOOST_TEST(b == 7);
  BOOST_TEST(all_once());

  // bulk_chunked: pieces of tine's grain (about 64 per worker), so many more than one.
  std::atomic<int> chunks{0};
  auto [c] = ex::sync_wait(ex::schedule(sch) | ex::then(seven) |
                           ex::bulk_chunked(ex::par, n,
                                            [&](std::size_t lo, std::size_t hi, int& v) {
                                              chunks.fetch_add(1);
                                              for (std::size_t i = lo; i < hi; ++i) {
                                                note(i, v);
                                              }
                                            }))
                 .value();
  BOOST_TEST(c == 7);
  BOOST_TEST(all_once());
  BOOST_TEST(chunks.load() > static_cast<int>(pool_workers));
  BOOST_TEST(static_cast<std::size_t>(chunks.load()) <= n);

  // bulk_unchunked: one call per index.
  std::atomic<std::size_t> calls{0};
  auto [u] = ex::sync_wait(ex::schedule(sch) | ex::then(seven) |
                           ex::bulk_unchunked(ex::par, n,
                                              [&](std::size_t i, int& v) {
                                                calls.fetch_add(1);
                                                note(i, v);
                                              }))
                 .value();
  BOOST_TEST(u == 7);
  BOOST_TEST(all_once());
  BOOST_TEST(calls.load() == n);

  // seq: the whole range as one piece, in order, still inside a tine task.
  std::vector<std::size_t> order;
  ex::sync_wait(ex::schedule(sch) | ex::then(seven) |
                ex::bulk(ex::seq, n, [&](std::size_t i, int& v) {
                  order.push_back(i);
                  note(i, v);
                }));
  BOOST_TEST(all_once());
  bool in_order = order.size() == n;
  for (std::size_t i = 0; in_order && i < n; ++i) {
    in_order = order[i] == i;
  }
  BOOST_TEST(in_order);

  // An empty shape calls nothing and sends the value on.
  auto [e] =
      ex::sync_wait(ex::schedule(sch) | ex::then(seven) |
                    ex::bulk(ex::par, std::size_t{0}, [&](std::size_t i, int& v) { note(i, v); }))
          .value();
  BOOST_TEST(e == 7);

  BOOST_TEST(outside.load() == 0);
  BOOST_TEST(wrong_value.load() == 0);
}

BOOST_AUTO_TEST_CASE(exceptions_complete_with_set_error) {
  watchdog dog(60s);
  auto sch = ex::get_parallel_scheduler();
  auto thrower = [] {
    throw std::runtime_error("from a then on the parallel scheduler");
    return 1;
  };
  BOOST_CHECK_EXCEPTION(ex::sync_wait(ex::schedule(sch) | ex::then(thrower)), std::runtime_error,
                        [](const std::runtime_error& e) {
                          return std::string(e.what()) == "from a then on the parallel scheduler";
                        });
  // The predecessor's error passes through bulk; the body is never called.
  std::atomic<int> calls{0};
  BOOST_CHECK_THROW(
      ex::sync_wait(ex::schedule(sch) | ex::then(thrower) |
                    ex::bulk(ex::par, 100, [&](std::size_t, int) { calls.fetch_add(1); })),
      std::runtime_error);
  BOOST_TEST(calls.load() == 0);
}

BOOST_AUTO_TEST_CASE(stop_before_start_completes_with_set_stopped) {
  watchdog dog(60s);
  auto sch = ex::get_parallel_scheduler();
  ex::inplace_stop_source stop;
  stop.request_stop();
  std::atomic<int> ran{0};
  auto r1 = ex::sync_wait(ex::schedule(sch) | ex::then([&] { ran.fetch_add(1); }) |
                          ex::write_env(ex::prop(ex::get_stop_token, stop.get_token())));
  BOOST_TEST(!r1.has_value());
  auto r2 = ex::sync_wait(ex::schedule(sch) |
                          ex::bulk(ex::par, 1000, [&](std::size_t) { ran.fetch_add(1); }) |
                          ex::write_env(ex::prop(ex::get_stop_token, stop.get_token())));
  BOOST_TEST(!r2.has_value());
  BOOST_TEST(ran.load() == 0);
}

// The frontend checks the token before it calls the backend; the backend checks it again when a
// worker takes the submission. With every worker held, a stop requested in between must win.
BOOST_AUTO_TEST_CASE(stop_while_queued_completes_with_set_stopped) {
  watchdog dog(60s);
  auto sch = ex::get_parallel_scheduler();
  std::atomic<int> held{0};
  std::atomic<bool> go{false};
  auto hold = [&] {
    held.fetch_add(1);
    while (!go.load()) {
      std::this_thread::yield();
    }
  };
  std::vector<record> holders(pool_workers);
  using hold_sender = decltype(ex::schedule(sch) | ex::then(hold));
  std::vector<std::unique_ptr<started<hold_sender>>> holding;
  for (auto& r : holders) {
    holding.push_back(start_recorded(ex::schedule(sch) | ex::then(hold), &r));
  }
  BOOST_REQUIRE(wait_for([&] { return held.load() == static_cast<int>(pool_workers); }));

  record target;
  std::atomic<int> ran{0};
  auto op = start_recorded(ex::schedule(sch) | ex::then([&] { ran.fetch_add(1); }), &target);
  target.stop.request_stop();
  go.store(true);
  BOOST_REQUIRE(wait_for([&] { return target.completions() > 0; }));
  BOOST_REQUIRE(wait_for([&] {
    int done = 0;
    for (auto& r : holders) {
      done += r.completions();
    }
    return done == static_cast<int>(pool_workers);
  }));
  BOOST_TEST(target.stops.load() == 1);
  BOOST_TEST(target.completions() == 1);
  BOOST_TEST(ran.load() == 0);
  for (auto& r : holders) {
    BOOST_TEST(r.values.load() == 1);
  }
}

// A stop requested by the loop's first call: the pieces not started are skipped.
BOOST_AUTO_TEST_CASE(stop_during_bulk_skips_the_rest) {
  watchdog dog(60s);
  auto sch = ex::get_parallel_scheduler();
  constexpr std::size_t n = 100000;
  ex::inplace_stop_source stop;
  std::atomic<std::size_t> calls{0};
  auto r = ex::sync_wait(ex::schedule(sch) |
                         ex::bulk_unchunked(ex::par, n,
                                            [&](std::size_t) {
                                              if (calls.fetch_add(1) == 0) {
                                                stop.request_stop();
                                              }
                                            }) |
                         ex::write_env(ex::prop(ex::get_stop_token, stop.get_token())));
  BOOST_TEST(!r.has_value());
  BOOST_TEST(calls.load() >= 1u);
  BOOST_TEST(calls.load() < n);
}

// Many operations of both kinds at once from two threads, some stopped at random moments:
// each completes exactly once, with a value unless it was stopped.
BOOST_AUTO_TEST_CASE(every_operation_completes_exactly_once) {
  watchdog dog(180s);
  constexpr int per_thread = 400;
  constexpr std::size_t shape = 300;
  struct slot {
    record r;
    std::atomic<std::size_t> calls{0};
    bool stopped = false;
  };
  std::vector<slot> slots(2 * per_thread);
  auto sch = ex::get_parallel_scheduler();
  auto nothing = [] {};
  using plain = decltype(ex::schedule(sch) | ex::then(nothing));
  auto count_calls = [](std::atomic<std::size_t>* c) {
    return [c](std::size_t) { c->fetch_add(1); };
  };
  using bulky =
      decltype(ex::schedule(sch) | ex::bulk_unchunked(ex::par, shape, count_calls(nullptr)));
  std::vector<std::unique_ptr<started<plain>>> plains(2 * per_thread);
  std::vector<std::unique_ptr<started<bulky>>> bulks(2 * per_thread);
  auto run = [&](int t) {
    std::mt19937 rng(static_cast<unsigned>(t) + 17);
    for (int k = 0; k < per_thread; ++k) {
      const std::size_t i = static_cast<std::size_t>(t * per_thread + k);
      slot& s = slots[i];
      if (k % 2 == 0) {
        plains[i] = start_recorded(ex::schedule(sch) | ex::then(nothing), &s.r);
      } else {
        bulks[i] = start_recorded(
            ex::schedule(sch) | ex::bulk_unchunked(ex::par, shape, count_calls(&s.calls)), &s.r);
      }
      if (rng() % 3 == 0) {
        s.stopped = true;
        s.r.stop.request_stop();
      }
    }
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  BOOST_REQUIRE(wait_for([&] {
    for (auto& s : slots) {
      if (s.r.completions() == 0) {
        return false;
      }
    }
    return true;
  }));
  std::this_thread::sleep_for(20ms);  // a second completion would show by now
  int wrong = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    slot& s = slots[i];
    const bool is_bulk = bulks[i] != nullptr;
    if (s.r.completions() != 1 || s.r.errors.load() != 0) {
      ++wrong;
    } else if (s.r.stops.load() == 1 && !s.stopped) {
      ++wrong;  // stopped without a stop request
    } else if (s.r.values.load() == 1 && is_bulk && s.calls.load() != shape) {
      ++wrong;  // a value, yet some index was skipped
    } else if (is_bulk && s.calls.load() > shape) {
      ++wrong;
    }
  }
  BOOST_TEST(wrong == 0);
}

BOOST_AUTO_TEST_CASE(the_backend_uses_the_frontends_storage_when_it_fits) {
  watchdog dog(60s);
  tine::execution::pool_backend& backend = tine_backend();
  constexpr std::byte pattern{0xA5};
  auto untouched = [&](std::span<std::byte> s) {
    for (std::byte b : s) {
      if (b != pattern) {
        return false;
      }
    }
    return true;
  };
  alignas(std::max_align_t) std::byte big[512];
  alignas(std::max_align_t) std::byte tiny[8];

  // schedule: in the storage when it fits (it is written), else allocated (it is not).
  for (bool fits : {true, false}) {
    std::span<std::byte> storage = fits ? std::span<std::byte>(big) : std::span<std::byte>(tiny);
    std::memset(storage.data(), 0xA5, storage.size());
    test_proxy p(0, backend.pool());
    backend.schedule(p, storage);
    BOOST_REQUIRE(wait_for([&] { return p.completions() > 0; }));
    BOOST_TEST(p.values.load() == 1);
    BOOST_TEST(untouched(storage) == !fits);
  }
  // No storage at all.
  {
    test_proxy p(0, backend.pool());
    backend.schedule(p, {});
    BOOST_REQUIRE(wait_for([&] { return p.completions() > 0; }));
    BOOST_TEST(p.values.load() == 1);
  }

  // bulk, both kinds, both places; an empty range completes with no call.
  constexpr std::size_t n = 5000;
  for (bool chunked : {true, false}) {
    for (bool fits : {true, false}) {
      std::span<std::byte> storage = fits ? std::span<std::byte>(big) : std::span<std::byte>(tiny);
      std::memset(storage.data(), 0xA5, storage.size());
      test_proxy p(n, backend.pool());
      if (chunked) {
        backend.schedule_bulk_chunked(n, p, storage);
      } else {
        backend.schedule_bulk_unchunked(n, p, storage);
      }
      BOOST_REQUIRE(wait_for([&] { return p.completions() > 0; }));
      BOOST_TEST(p.values.load() == 1);
      BOOST_TEST(untouched(storage) == !fits);
      bool once = true;
      for (auto& h : p.hits) {
        once = once && h.load() == 1;
      }
      BOOST_TEST(once);
      BOOST_TEST(p.outside_task.load() == 0);
    }
    test_proxy empty(0, backend.pool());
    if (chunked) {
      backend.schedule_bulk_chunked(0, empty, {});
    } else {
      backend.schedule_bulk_unchunked(0, empty, {});
    }
    BOOST_TEST(empty.values.load() == 1);  // at once, on this thread
  }
  std::this_thread::sleep_for(20ms);
}

// stdexec's run-time switch (deprecated there, and not in the paper), defined by tine's target.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
BOOST_AUTO_TEST_CASE(set_parallel_scheduler_backend_installs_another_and_back) {
  watchdog dog(60s);
  auto workers_seen = [] {
    auto [w] = ex::sync_wait(ex::schedule(ex::get_parallel_scheduler()) |
                             ex::then([] { return tine::current_worker_count(); }))
                   .value();
    return w;
  };
  using factory = std::shared_ptr<pr::parallel_scheduler_backend> (*)();
  const factory two = [] {
    return std::shared_ptr<pr::parallel_scheduler_backend>(
        std::make_shared<tine::execution::pool_backend>(2));
  };
  const factory old = pr::set_parallel_scheduler_backend(two);
  BOOST_TEST((old == &tine::execution::shared_pool_backend));
  BOOST_TEST(workers_seen() == 2u);
  BOOST_TEST(tine_backend().pool().size() == 2u);
  BOOST_TEST((pr::set_parallel_scheduler_backend(old) == two));
  BOOST_TEST(workers_seen() == pool_workers);
  BOOST_TEST((pr::query_parallel_scheduler_backend() == tine::execution::shared_pool_backend()));
  BOOST_CHECK_EXCEPTION(pr::set_parallel_scheduler_backend(nullptr), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return std::string(e.what()).find("the factory is null") !=
                                 std::string::npos;
                        });
  BOOST_TEST(workers_seen() == pool_workers);
}
#pragma GCC diagnostic pop
