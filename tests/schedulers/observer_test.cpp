// Pool observers on real runs of busy_pool and lazy_pool: the events a counting observer sees obey
// the pools' promises, the stats observer agrees with it and with the pools' own counters, and
// the trace observer writes valid JSON whose events match what was observed.
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/schedulers/pool_observer.hpp>
#include <tine/schedulers/stats_observer.hpp>
#include <tine/schedulers/trace_observer.hpp>

#include "tests/schedulers/counting_observer.hpp"
#include "tests/schedulers/mini_json.hpp"

namespace {

tine::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await tine::fork(&a, fib, n - 1);
  co_await tine::call(&b, fib, n - 2);
  co_await tine::join();
  co_return a + b;
}

// A deep chain of calls: its frames outgrow the first stacklet many times over.
tine::task<int> depth(int n) {
  if (n == 0) {
    co_return 0;
  }
  int r = 0;
  co_await tine::call(&r, depth, n - 1);
  co_return r + 1;
}

constexpr int fib_n = 20;
constexpr long fib_value = 6765;
constexpr int deep_n = 20000;
constexpr int rounds = 6;

// The workload of every test: `rounds` fib roots and one deep chain, each a sync_wait. Returns
// the number of sync_wait calls.
template <typename Pool>
int run_workload(Pool& pool) {
  int calls = 0;
  for (int i = 0; i < rounds; ++i) {
    BOOST_TEST(tine::sync_wait(pool, fib, fib_n) == fib_value);
    ++calls;
  }
  BOOST_TEST(tine::sync_wait(pool, depth, deep_n) == deep_n);
  return calls + 1;
}

template <template <typename, typename> class Pool>
struct pool_kind {
  template <typename Observer>
  using type = Pool<tine::numa_victims, Observer>;
  static constexpr bool lazy = std::is_same_v<Pool<tine::numa_victims, tine::no_observer>,
                                              tine::lazy_pool<tine::numa_victims>>;
};

using kinds = boost::mpl::list<pool_kind<tine::busy_pool>, pool_kind<tine::lazy_pool>>;

// What a run observed with every observer at once.
struct observed {
  counting_observer count;
  tine::stats_observer stats;
  tine::trace_observer trace{1 << 16};
  tine::worker_stats pool_counters;
  int calls = 0;
};

template <typename Kind>
void observe_run(observed& o, std::size_t workers) {
  using both = tine::observers<tine::stats_observer, tine::trace_observer>;
  using all = tine::observers<counting_observer, both>;
  both stats_and_trace(o.stats, o.trace);
  all every(o.count, stats_and_trace);
  typename Kind::template type<all> pool(workers, every);
  o.calls = run_workload(pool);
  // resume_on is not used, so every submission is a sync_wait root.
  o.pool_counters = pool.stats();
}

}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(events_obey_the_pool_protocol, Kind, kinds) {
  for (std::size_t workers : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
    BOOST_TEST_CONTEXT("workers " << workers) {
      observed o;
      observe_run<Kind>(o, workers);
      const counting_observer& c = o.count;
      BOOST_TEST(c.attaches() == 1);
      BOOST_TEST(c.workers() == workers);
      for (std::size_t w = 0; w < workers; ++w) {
        BOOST_TEST(c.of(w).starts == 1u);
        BOOST_TEST(c.of(w).stops == 1u);
        // Each piece of work taken was given back: the pool is quiescent when destroyed.
        BOOST_TEST(c.of(w).work_done == c.of(w).steals + c.of(w).submissions);
      }
      const counts t = c.total();
      BOOST_TEST(t.violations == 0u);  // order: start/stop, attempt before steal, states
      BOOST_TEST(t.submissions == static_cast<std::uint64_t>(o.calls));
      BOOST_TEST(t.join_suspends == t.join_resumes);
      BOOST_TEST(t.sleeps == t.wakes);
      if (!Kind::lazy) {
        BOOST_TEST(t.sleeps == 0u);
      }
      BOOST_TEST(t.allocs >= t.frees);  // stacks' last stacklets are freed by the destructor
      BOOST_TEST(t.alloc_bytes >= t.free_bytes);
      BOOST_TEST(t.allocs > 0u);
      BOOST_TEST(t.high_water > 0);
      if (workers == 1) {
        BOOST_TEST(t.steals <= t.attempts);
      }
      // The pool's own counters saw the same work (read while the pool still ran: idle workers
      // go on looking for work and sleeping after it, so those counts can only have grown).
      BOOST_TEST(o.pool_counters.submissions_run == t.submissions);
      // A steal is counted by the pool when the work it led to is done, which may be after the
      // last sync_wait returned (its root completed inside that work): at most one per worker.
      BOOST_TEST(o.pool_counters.steals_succeeded <= t.steals);
      BOOST_TEST(o.pool_counters.steals_succeeded + workers >= t.steals);
      BOOST_TEST(o.pool_counters.steals_attempted <= t.attempts);
      BOOST_TEST(o.pool_counters.sleeps <= t.sleeps);
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(stats_agree_with_the_counting_observer, Kind, kinds) {
  observed o;
  observe_run<Kind>(o, 2);
  const tine::stats_report r = o.stats.report();
  BOOST_TEST_REQUIRE(r.workers.size() == 2u);
  for (std::size_t w = 0; w < 2; ++w) {
    const counts& c = o.count.of(w);
    const tine::worker_report& s = r.workers[w];
    BOOST_TEST(s.submissions == c.submissions);
    BOOST_TEST(s.steal_attempts == c.attempts);
    BOOST_TEST(s.steals == c.steals);
    BOOST_TEST(s.joins_suspended == c.join_suspends);
    BOOST_TEST(s.joins_resumed == c.join_resumes);
    BOOST_TEST(s.sleeps == c.sleeps);
    BOOST_TEST(s.wakes == c.wakes);
    BOOST_TEST(s.stacklets_allocated == c.allocs);
    BOOST_TEST(s.stacklets_freed == c.frees);
    BOOST_TEST(s.stack_bytes_allocated == c.alloc_bytes);
    BOOST_TEST(s.stack_high_water == static_cast<std::uint64_t>(c.high_water));
    std::uint64_t row = 0;
    for (std::uint64_t n : s.steals_from) {
      row += n;
    }
    BOOST_TEST(row == s.steals);
    // Outside submissions go to the shared queue, so which workers run anything is up to timing:
    // a worker was busy for a while exactly when it ran a submission or a stolen continuation.
    BOOST_TEST((s.busy.count() > 0) == (s.submissions + s.steals > 0));
    if (!Kind::lazy) {
      BOOST_TEST(s.asleep.count() == 0);
    }
  }
  const tine::worker_report total = r.total();
  BOOST_TEST(total.submissions == o.count.total().submissions);
  BOOST_TEST(total.busy.count() > 0);
  BOOST_TEST(total.stack_high_water > 0u);
  const std::string table = r.to_string();
  std::ostringstream printed;
  r.print(printed);
  BOOST_TEST(printed.str() == table);
  BOOST_TEST(table.find("worker") == 0u);
  BOOST_TEST(table.find("\ntotal ") != std::string::npos);
  BOOST_TEST(table.find("steals by victim") != std::string::npos);
}

namespace {

// Checks the trace against the contract and what the counting observer saw; returns the number
// of events of the trace.
std::size_t check_trace(const std::string& json, const counting_observer& c,
                        std::uint64_t dropped) {
  const mini_json::value doc = mini_json::parse(json);  // throws if it is not valid JSON
  const std::size_t n = c.workers();
  BOOST_TEST(doc.at("displayTimeUnit").str == "ns");
  const mini_json::value& other = doc.at("otherData");
  BOOST_TEST(other.at("producer").str == "tine");
  BOOST_TEST(other.at("tine_version").str == TINE_VERSION_STRING);
  BOOST_TEST(other.at("clock").str == "steady_clock");
  BOOST_TEST(other.at("workers").num == static_cast<double>(n));
  BOOST_TEST(other.at("dropped_events").num == static_cast<double>(dropped));

  std::set<double> named;
  std::map<std::string, std::uint64_t> instants;
  std::uint64_t steals = 0;
  std::map<double, std::pair<double, double>> flows;  // id -> (tid of s, tid of f)
  std::map<double, double> steal_victims;             // ts of a steal instant -> victim (last)
  std::map<double, std::vector<std::pair<double, double>>> spans;  // tid -> (ts, dur)
  const auto& events = doc.at("traceEvents").arr;
  for (const mini_json::value& e : events) {
    BOOST_TEST(e.at("pid").num == 1.0);
    const double tid = e.at("tid").num;
    BOOST_TEST((tid >= 0 && tid < static_cast<double>(n)));
    const std::string& ph = e.at("ph").str;
    if (ph == "M") {
      BOOST_TEST(e.at("name").str == "thread_name");
      BOOST_TEST(e.at("args").at("name").str == "worker " + std::to_string(static_cast<int>(tid)));
      named.insert(tid);
      continue;
    }
    BOOST_TEST(e.at("ts").num >= 0.0);
    if (ph == "X") {
      BOOST_TEST(e.at("cat").str == "state");
      const std::string& s = e.at("name").str;
      BOOST_TEST((s == "busy" || s == "stealing" || s == "asleep"));
      spans[tid].emplace_back(e.at("ts").num, e.at("dur").num);
    } else if (ph == "i") {
      BOOST_TEST(e.at("s").str == "t");
      if (e.at("cat").str == "steal") {
        ++steals;
        const double victim = e.at("args").at("victim").num;
        BOOST_TEST((victim >= 0 && victim < static_cast<double>(n)));
      } else {
        BOOST_TEST(e.at("cat").str == "event");
        ++instants[e.at("name").str];
        if (e.at("name").str.rfind("stacklet_", 0) == 0) {
          BOOST_TEST(e.at("args").at("bytes").num > 0.0);
        }
      }
    } else if (ph == "s") {
      BOOST_TEST(e.at("cat").str == "steal");
      BOOST_TEST(flows.count(e.at("id").num) == 0u);
      flows[e.at("id").num].first = tid;
    } else if (ph == "f") {
      BOOST_TEST(e.at("bp").str == "e");
      flows[e.at("id").num].second = tid;
    } else {
      BOOST_FAIL("unexpected phase " + ph);
    }
  }
  BOOST_TEST(named.size() == n);
  BOOST_TEST(flows.size() == steals);  // one s/f pair per steal instant, ids unique
  // State spans of a worker do not overlap (ts and dur are rounded to the nanosecond).
  for (auto& [tid, list] : spans) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) {
      BOOST_TEST(list[i - 1].first + list[i - 1].second <= list[i].first + 0.0015);
    }
  }
  if (dropped == 0) {
    const counts t = c.total();
    BOOST_TEST(steals == t.steals);
    BOOST_TEST(instants["submission"] == t.submissions);
    BOOST_TEST(instants["join_suspend"] == t.join_suspends);
    BOOST_TEST(instants["join_resume"] == t.join_resumes);
    BOOST_TEST(instants["stacklet_alloc"] == t.allocs);
    BOOST_TEST(instants["stacklet_free"] == t.frees);
    BOOST_TEST(instants["wake"] == t.wakes);
  }
  return events.size();
}

}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(trace_is_valid_json_matching_the_run, Kind, kinds) {
  observed o;
  observe_run<Kind>(o, 2);
  BOOST_TEST(o.trace.dropped_events() == 0u);
  BOOST_TEST(o.trace.recorded_events() == o.count.total().traced());
  std::ostringstream out;
  o.trace.write_chrome_trace(out);
  BOOST_TEST(check_trace(out.str(), o.count, 0) > 2u);
  for (std::size_t w = 0; w < 2; ++w) {
    // Steal flows go from victim to thief: every s is on a tid that some f's thief stole from.
    BOOST_TEST(o.count.of(w).steals == o.stats.report().workers[w].steals);
  }
}

BOOST_AUTO_TEST_CASE(trace_flows_pair_victim_and_thief) {
  // Parse once more, pairing each steal instant's victim with its flow's start.
  tine::trace_observer trace;
  counting_observer count;
  tine::observers<counting_observer, tine::trace_observer> both(count, trace);
  {
    tine::lazy_pool pool(2, both);
    for (int i = 0; i < rounds; ++i) {
      BOOST_TEST(tine::sync_wait(pool, fib, fib_n) == fib_value);
    }
  }
  std::ostringstream out;
  trace.write_chrome_trace(out);
  const mini_json::value doc = mini_json::parse(out.str());
  // The writer emits each steal as instant, s, f in a row.
  const auto& ev = doc.at("traceEvents").arr;
  std::size_t pairs = 0;
  for (std::size_t i = 0; i + 2 < ev.size(); ++i) {
    if (ev[i].at("ph").str == "i" && ev[i].at("cat").str == "steal") {
      BOOST_TEST_REQUIRE(ev[i + 1].at("ph").str == "s");
      BOOST_TEST_REQUIRE(ev[i + 2].at("ph").str == "f");
      BOOST_TEST(ev[i + 1].at("tid").num == ev[i].at("args").at("victim").num);
      BOOST_TEST(ev[i + 2].at("tid").num == ev[i].at("tid").num);
      BOOST_TEST(ev[i + 1].at("id").num == ev[i + 2].at("id").num);
      BOOST_TEST(ev[i + 1].at("ts").num == ev[i].at("ts").num);
      ++pairs;
    }
  }
  BOOST_TEST(pairs == count.total().steals);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_full_trace_buffer_drops_and_counts, Kind, kinds) {
  constexpr std::size_t capacity = 8;
  tine::trace_observer trace(capacity);
  counting_observer count;
  tine::observers<counting_observer, tine::trace_observer> both(count, trace);
  {
    typename Kind::template type<decltype(both)> pool(2, both);
    run_workload(pool);
  }
  const std::uint64_t events = count.total().traced();
  BOOST_TEST_REQUIRE(events > 2 * capacity);  // enough to overflow at least one worker
  BOOST_TEST(trace.dropped_events() > 0u);
  // Every event was either kept or counted as dropped; a full buffer keeps capacity - 1 events
  // and its last slot marks where recording stopped.
  BOOST_TEST(trace.recorded_events() + trace.dropped_events() == events);
  BOOST_TEST(trace.recorded_events() <= 2 * (capacity - 1));
  std::ostringstream out;
  trace.write_chrome_trace(out);
  check_trace(out.str(), count, trace.dropped_events());
}

BOOST_AUTO_TEST_CASE(trace_observer_misuse_is_reported) {
  BOOST_CHECK_EXCEPTION(
      tine::trace_observer(1), std::invalid_argument, [](const std::invalid_argument& e) {
        return std::string(e.what()).find("at least 2, got 1") != std::string::npos;
      });
  tine::trace_observer trace;
  {
    tine::busy_pool pool(1, trace);
    BOOST_TEST(tine::sync_wait(pool, fib, 10) == 55);
  }
  BOOST_CHECK_EXCEPTION(trace.write_chrome_trace(std::string("/nonexistent-dir/trace.json")),
                        std::runtime_error, [](const std::runtime_error& e) {
                          return std::string(e.what()).find("'/nonexistent-dir/trace.json'") !=
                                 std::string::npos;
                        });
}

namespace {

// [docs:steal_counter]
// Counts steals per thief; every other hook is observer_base's empty one.
struct steal_counter : tine::observer_base {
  std::vector<std::uint64_t> steals;

  // Before any worker starts: size per-worker state here (it may allocate and throw).
  void attach(std::size_t workers) { steals.assign(workers, 0); }

  // On worker w's own thread: w's slot is written by w alone, no lock needed.
  void on_steal(std::size_t w, std::size_t /*victim*/) noexcept { ++steals[w]; }
};
// [docs:steal_counter end]

struct not_an_observer {
  void on_steal(std::size_t, std::size_t) {}  // the rest is missing, and it is not noexcept
};

}  // namespace

static_assert(tine::pool_observer<steal_counter>);
static_assert(!tine::pool_observer<not_an_observer>);
static_assert(!tine::pool_observer<int>);
// The default keeps existing spellings and holds no observer.
static_assert(std::is_same_v<tine::lazy_pool<>, tine::lazy_pool<tine::numa_victims>>);
static_assert(std::is_same_v<tine::busy_pool<>::observer_type, tine::no_observer>);
static_assert(std::is_empty_v<tine::detail::observer_link<tine::no_observer>>);
static_assert(!std::is_constructible_v<tine::lazy_pool<tine::numa_victims, steal_counter>,
                                       std::size_t>);  // an observed pool needs its observer
static_assert(!std::is_constructible_v<tine::lazy_pool<>, std::size_t, steal_counter&>);

BOOST_AUTO_TEST_CASE(a_user_observer_derived_from_observer_base) {
  // [docs:steal_counter_use]
  steal_counter mine;
  {
    tine::busy_pool pool(2, mine);  // a busy_pool<numa_victims, steal_counter>
    for (int i = 0; i < 6; ++i) {
      tine::sync_wait(pool, fib, 20);
    }
  }  // the workers have stopped: mine.steals may be read
  // [docs:steal_counter_use end]
  BOOST_TEST_REQUIRE(mine.steals.size() == 2u);
  // Checked against the counting observer in the same run.
  steal_counter again;
  counting_observer count;
  tine::observers<steal_counter, counting_observer> both(again, count);
  {
    tine::busy_pool pool(2, both);
    for (int i = 0; i < rounds; ++i) {
      BOOST_TEST(tine::sync_wait(pool, fib, fib_n) == fib_value);
    }
  }
  BOOST_TEST(again.steals[0] == count.of(0).steals);
  BOOST_TEST(again.steals[1] == count.of(1).steals);
}

BOOST_AUTO_TEST_CASE(the_documented_example) {
  // [docs:observe_a_pool]
  tine::stats_observer stats;
  tine::trace_observer trace(1 << 20);  // at most 2^20 events per worker, allocated up front
  tine::observers both(stats, trace);   // a pool has one observer: this one reports to two
  {
    tine::lazy_pool pool(2, both);
    tine::sync_wait(pool, fib, 25);
  }  // the pool is destroyed: its workers have stopped, the observers may be read
  stats.report().print(std::cout);
  std::ostringstream json;  // or trace.write_chrome_trace("trace.json")
  trace.write_chrome_trace(json);
  // [docs:observe_a_pool end]
  BOOST_TEST(stats.report().total().submissions == 1u);
  BOOST_TEST(mini_json::parse(json.str()).at("otherData").at("workers").num == 2.0);
}

namespace {

// An observer whose attach fails, as a trace_observer's does when its buffers cannot be had.
struct refuses_to_attach : tine::observer_base {
  void attach(std::size_t) { throw std::runtime_error("refuses_to_attach"); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_throwing_attach_reaches_the_pools_caller_through_observers) {
  counting_observer count;
  refuses_to_attach bad;
  tine::observers<counting_observer, refuses_to_attach> both(count, bad);
  BOOST_CHECK_THROW(tine::lazy_pool pool(2, both), std::runtime_error);
  BOOST_CHECK_THROW(tine::busy_pool pool(2, both), std::runtime_error);
  // A pool that could be built still works after the failed ones.
  counting_observer fine;
  tine::busy_pool pool(2, fine);
  BOOST_TEST(tine::sync_wait(pool, fib, fib_n) == fib_value);
}
