// tine::analyze: the measures of known graphs against their closed forms (counting strands, the
// same on every run), timed measures of a tree of known strands, regions, and misuse.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <tine/algorithms/reduce.hpp>
#include <tine/algorithms/sort.hpp>
#include <tine/analysis/analyze.hpp>
#include <tine/analysis/region.hpp>
#include <tine/core/core.hpp>
#include <tine/schedulers/inline_scheduler.hpp>

#include "tests/core/death.hpp"
#include "tests/core/fork_programs.hpp"

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

// A perfectly balanced binary tree of depth d: fork the left half, call the right, join.
tine::task<> tree(int d) {
  if (d == 0) {
    co_return;
  }
  co_await tine::fork(tree, d - 1);
  co_await tine::call(tree, d - 1);
  co_await tine::join();
}

std::uint64_t fibonacci(int n) {
  std::uint64_t a = 0;
  std::uint64_t b = 1;
  for (int i = 0; i < n; ++i) {
    b = a + b;
    a = b - a;
  }
  return a;
}

tine::analysis count_strands(auto fn, int n, int repeats = 1) {
  tine::analysis_options o;
  o.unit_strands = true;
  o.repeats = repeats;
  return tine::analyze(o, fn, n);
}

}  // namespace

// Counting strands (each piece of a task between two forks, returns or joins), an internal node
// of either tree has four points (its fork, its child's return, its join, its end), so the work
// is 4 (internal nodes) + 1 strands; the longest chain has three strands per level (the one
// that forks, the one after the join, the end of the child's return), and the run's first and
// last: 3n - 2 for fib(n), 3d + 1 for the tree of depth d.
BOOST_AUTO_TEST_CASE(fib_work_and_span_have_their_closed_forms) {
  for (int n = 0; n <= 16; ++n) {
    const tine::analysis a = count_strands(fib, n);
    const std::uint64_t internal = n < 2 ? 0 : fibonacci(n + 1) - 1;
    BOOST_TEST(a.forks() == internal);
    BOOST_TEST(a.joins() == internal);
    BOOST_TEST(a.work() == static_cast<double>(4 * internal + 1));
    BOOST_TEST(a.span() == (n < 2 ? 1.0 : 3.0 * n - 2));
    BOOST_TEST(a.burdened_span() == a.span());  // a steal costs nothing by default here
  }
}

BOOST_AUTO_TEST_CASE(balanced_tree_work_and_span_have_their_closed_forms) {
  for (int d = 0; d <= 12; ++d) {
    const tine::analysis a = count_strands(tree, d);
    const double internal = static_cast<double>((std::uint64_t{1} << d) - 1);
    BOOST_TEST(a.work() == 4 * internal + 1);
    BOOST_TEST(a.span() == (d == 0 ? 1.0 : 3.0 * d + 1));
    BOOST_TEST(a.parallelism() == a.work() / a.span());
  }
}

BOOST_AUTO_TEST_CASE(burdened_span_charges_each_continuation_on_the_chain) {
  // One unit per steal: fib(n)'s burdened chain goes through the n - 1 forks down its left
  // spine, each of whose continuations is charged (counted here against the plain chain).
  tine::analysis_options o;
  o.unit_strands = true;
  o.steal_cost = 1;
  const tine::analysis a = tine::analyze(o, tree, 6);
  BOOST_TEST(a.steal_cost() == 1.0);
  BOOST_TEST(a.burdened_span() > a.span());
  BOOST_TEST(a.burdened_span() <= a.span() + 6);  // at most one charge per level
  o.steal_cost = 100;  // steals dominate: every level's continuation is on the burdened chain
  const tine::analysis b = tine::analyze(o, tree, 6);
  BOOST_TEST(b.burdened_span() >= 6 * 100.0);
}

BOOST_AUTO_TEST_CASE(repeated_runs_keep_the_graph_and_say_how_many_were_used) {
  const tine::analysis a = count_strands(fib, 10, 3);
  BOOST_TEST(a.raw().runs == 3);
  BOOST_TEST(a.work() == static_cast<double>(4 * (fibonacci(11) - 1) + 1));
  BOOST_TEST(a.span() == 28.0);
  BOOST_TEST(a.problems().empty());
}

namespace {

double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Spins for `us` microseconds of the thread's processor time: a strand of known work, however
// long the machine's other work keeps the thread waiting (which the analyzer does not count).
void spin(int us) {
  const double end = thread_cpu_seconds() + 1e-6 * us;
  while (thread_cpu_seconds() < end) {
  }
}

tine::task<> timed_tree(int d, int leaf_us) {
  if (d == 0) {
    spin(leaf_us);
    co_return;
  }
  co_await tine::fork(timed_tree, d - 1, leaf_us);
  co_await tine::call(timed_tree, d - 1, leaf_us);
  co_await tine::join();
}

}  // namespace

BOOST_AUTO_TEST_CASE(timed_tree_has_its_work_and_a_span_of_about_one_leaf) {
  // 32 leaves of 200 us: work about 6.4 ms, span about one leaf. Each strand's shortest time over
  // three runs, so that a leaf slowed by the machine's other work in one run does not count.
  tine::analysis_options o;
  o.repeats = 3;
  o.steal_cost = 2e-6;
  const tine::analysis a = tine::analyze(o, timed_tree, 5, 200);
  BOOST_TEST_MESSAGE("work " << a.work() << " s, span " << a.span() << " s");
  BOOST_TEST(a.work() >= 32 * 200e-6);
  BOOST_TEST(a.work() < 32 * 200e-6 * 2);
  BOOST_TEST(a.span() >= 200e-6);
  BOOST_TEST(a.parallelism() > 8);
  BOOST_TEST(a.parallelism() <= 32 * 1.01);
  BOOST_TEST(a.speedup(1) == 1.0);
  BOOST_TEST(a.speedup(2) > 1.5);
  BOOST_TEST(a.speedup(2) <= 2.0);
  BOOST_TEST(a.speedup_bound(2) == 2.0);
  BOOST_TEST(a.speedup_bound(1000) == a.parallelism());
  BOOST_TEST(a.steal_cost() == 2e-6);
  BOOST_TEST(!a.raw().steal_cost_measured);
}

BOOST_AUTO_TEST_CASE(the_steal_cost_is_measured_once_and_is_short) {
  const double cost = tine::measure_steal_cost();
  const tine::steal_cost_measurement& m = tine::measure_steal_cost_details();
  BOOST_TEST_MESSAGE("a steal: " << cost * 1e6 << " us; " << m.batches << " batches, " << m.rounds
                                 << " rounds, spread " << m.spread << "; "
                                 << (m.warning.empty() ? "trusted" : m.warning));
  BOOST_TEST(cost > 0);
  BOOST_TEST(m.seconds == cost);
  BOOST_TEST(tine::measure_steal_cost() == cost);
  BOOST_TEST(m.batches >= 3);
  BOOST_TEST(m.spread >= 1.0);
  const tine::analysis a = tine::analyze(fib, 10);
  BOOST_TEST(a.steal_cost() == cost);
  BOOST_TEST(a.raw().steal_cost_measured);
  BOOST_TEST(a.raw().steal_cost_spread == m.spread);
  BOOST_TEST(a.raw().steal_cost_agreement == m.agreement);
  BOOST_TEST((m.warning.empty() == (m.agreement <= 1.5 && m.seconds <= 100e-6)));
  // The measurement's doubt reaches the report.
  BOOST_TEST(a.warnings().size() == (m.warning.empty() ? 0U : 1U));
}

namespace {

// Busy threads on every hardware thread, twice over, while it lives: a loaded machine, on which
// the two threads of a steal's measurement seldom run at once.
class machine_load {
 public:
  machine_load() {
    const unsigned n = 2 * std::max(1U, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < n; ++i) {
      m_threads.emplace_back([this] {
        // relaxed: only ends the loop.
        while (!m_stop.load(std::memory_order_relaxed)) {
        }
      });
    }
  }
  ~machine_load() {
    m_stop.store(true, std::memory_order_relaxed);
    for (std::thread& t : m_threads) {
      t.join();
    }
  }
  machine_load(const machine_load&) = delete;
  machine_load& operator=(const machine_load&) = delete;

 private:
  std::atomic<bool> m_stop{false};
  std::vector<std::thread> m_threads;
};

}  // namespace

// On a loaded machine the measurement may fail (the old one gave 6 to 12 ms where a steal costs
// 2 us, and said nothing); what it must not do is give an implausible figure, or batches that
// disagree, without a warning.
BOOST_AUTO_TEST_CASE(a_steal_cost_measured_on_a_loaded_machine_is_trusted_only_when_plausible) {
  for (int i = 0; i < 2; ++i) {
    tine::steal_cost_measurement m;
    {
      machine_load load;
      m = tine::detail::measure_steal_cost_now();
    }
    BOOST_TEST_MESSAGE("loaded: " << m.seconds * 1e6 << " us; " << m.batches << " batches, "
                                  << m.rounds << " rounds, agreement " << m.agreement << ", spread "
                                  << m.spread << "; "
                                  << (m.warning.empty() ? "trusted" : m.warning));
    BOOST_TEST(m.seconds > 0);
    BOOST_TEST(m.batches >= 1);
    BOOST_TEST(m.batches <= 10);
    BOOST_TEST(m.spread >= 1.0);
    BOOST_TEST(m.agreement >= 1.0);
    BOOST_TEST(m.agreement <= m.spread);
    if (m.warning.empty()) {
      BOOST_TEST(m.seconds <= 100e-6);
      BOOST_TEST(m.agreement <= 1.5);
      BOOST_TEST(m.batches >= 3);
    } else {
      BOOST_TEST(m.warning.find("give analysis_options::steal_cost instead") != std::string::npos);
    }
  }
}

namespace {

// Fine-grained forks with a steal cost far above their strands: burdened span above the work.
tine::analysis expensive_steals() {
  tine::analysis::measures m;
  m.name = "expensive steals";
  m.work = 1e-3;
  m.span = 1e-4;
  m.burdened_span = 5e-3;
  m.steal_cost = 1e-3;
  m.steal_cost_measured = true;
  m.steal_cost_batches = 4;
  m.steal_cost_agreement = 2.5;
  m.steal_cost_spread = 40;
  m.forks = 5;
  m.warnings = {"the steal cost could not be measured reliably: test"};
  return tine::analysis(m);
}

// A directory of this run's own: under Bazel's per-run TEST_TMPDIR (runs in parallel may share
// the temporary directory, and their process ids in their sandboxes), else under the temporary
// directory with the process id.
std::filesystem::path private_directory(const std::string& name) {
  if (const char* own = std::getenv("TEST_TMPDIR"); own != nullptr && *own != '\0') {
    return std::filesystem::path(own) / name;
  }
  return std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()));
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The `name="..."` attribute of the SVG element that begins at `at`.
std::string attribute(const std::string& svg, std::size_t at, const std::string& name) {
  const std::size_t end = svg.find('>', at);
  const std::size_t a = svg.find(" " + name + "=\"", at);
  BOOST_TEST_REQUIRE((a != std::string::npos && a < end));
  const std::size_t v = a + name.size() + 3;
  return svg.substr(v, svg.find('"', v) - v);
}

}  // namespace

BOOST_AUTO_TEST_CASE(warnings_and_the_spread_are_in_every_report) {
  const tine::analysis a = expensive_steals();
  std::ostringstream text;
  a.print(text);
  BOOST_TEST(text.str().find("  steal cost      4 batches of rounds: the two lowest 2.5x apart, "
                             "the highest 40x the lowest") != std::string::npos);
  BOOST_TEST(text.str().find("  warning: the steal cost could not be measured reliably: test") !=
             std::string::npos);
  const auto dir = private_directory("tine_analyze_warnings");
  std::filesystem::create_directories(dir);
  a.write_html((dir / "a.html").string());
  a.write_json((dir / "a.json").string());
  const std::string html = slurp(dir / "a.html");
  const std::string json = slurp(dir / "a.json");
  std::filesystem::remove_all(dir);
  BOOST_TEST(html.find("<p class=\"warning\"><strong>Warning:</strong> the steal cost could not "
                       "be measured reliably: test</p>") != std::string::npos);
  BOOST_TEST(json.find("\"warnings\": [\"the steal cost could not be measured reliably: test\"]") !=
             std::string::npos);
  BOOST_TEST(json.find("\"steal_cost_batches\": 4, \"steal_cost_agreement\": 2.5, "
                       "\"steal_cost_spread\": 40") != std::string::npos);
  tine::analysis_options o;
  o.unit_strands = true;
  const tine::analysis given = tine::analyze(o, fib, 5);
  BOOST_TEST(given.warnings().empty());
}

// A prediction below 1 (steals that cost more than the strands they split) is drawn below the
// speed-up axis's 1, not on it.
BOOST_AUTO_TEST_CASE(the_chart_shows_a_predicted_speed_up_below_one) {
  const tine::analysis a = expensive_steals();
  BOOST_TEST_REQUIRE(a.speedup(256) < 0.25);
  const auto dir = private_directory("tine_analyze_chart");
  std::filesystem::create_directories(dir);
  a.write_html((dir / "a.html").string());
  const std::string html = slurp(dir / "a.html");
  std::filesystem::remove_all(dir);
  const std::size_t one = html.find("data-speedup=\"1\"");
  BOOST_TEST_REQUIRE(one != std::string::npos);
  const double y_one = std::stod(attribute(html, html.rfind('<', one), "y1"));
  BOOST_TEST(html.find("data-speedup=\"0.125\"") != std::string::npos);  // the axis goes down
  const std::size_t red = html.find("stroke=\"#d94a4a\" stroke-width=\"2\" points=");
  BOOST_TEST_REQUIRE(red != std::string::npos);
  std::istringstream points(attribute(html, html.rfind('<', red), "points"));
  std::vector<double> ys;
  for (std::string xy; points >> xy;) {
    ys.push_back(std::stod(xy.substr(xy.find(',') + 1)));
  }
  BOOST_TEST_REQUIRE(ys.size() == 256U);
  BOOST_TEST(ys.front() == y_one);        // one worker: 1
  BOOST_TEST(ys.back() > y_one + 50);     // below 1/4, far under the line of 1
  BOOST_TEST(ys.back() <= 400.0 - 44.0);  // inside the plot
}

namespace {

tine::task<long> fib_in_region(int n) {
  tine::region r("fib");
  long x = 0;
  co_await tine::call(&x, fib, n);
  co_return x;
}

tine::task<> two_regions(int n) {
  {
    tine::region outer("outer");
    co_await tine::call(fib_in_region, n);
    co_await tine::call(fib_in_region, n);
  }
  co_await tine::call(fib_in_region, n - 1);
}

tine::task<> leaf() { co_return; }

tine::task<> region_around_an_open_fork() {
  {
    tine::region r("open");
    co_await tine::fork(leaf);
  }
  co_await tine::join();
}

}  // namespace

BOOST_AUTO_TEST_CASE(regions_add_up_over_their_runs_and_nest) {
  tine::analysis_options o;
  o.unit_strands = true;
  const tine::analysis a = tine::analyze(o, two_regions, 8);
  BOOST_TEST(a.problems().empty());
  BOOST_TEST_REQUIRE(a.regions().size() == 2U);
  // In the order they first began.
  const tine::region_summary& outer = a.regions()[0];
  const tine::region_summary& f = a.regions()[1];
  BOOST_TEST(outer.name == "outer");
  BOOST_TEST(outer.count == 1U);
  BOOST_TEST(f.name == "fib");
  BOOST_TEST(f.count == 3U);
  // A called fib(n) holds 4 (F(n+1) - 1) points; a region's work is the strands that end at
  // them and at its own end. "fib" ran around fib(8), fib(8) and fib(7); "outer" around two
  // of those regions, whose two beginnings and two ends are points of its own.
  const double w8 = 4.0 * static_cast<double>(fibonacci(9) - 1);
  const double w7 = 4.0 * static_cast<double>(fibonacci(8) - 1);
  BOOST_TEST(f.work == 2 * (w8 + 1) + (w7 + 1));
  BOOST_TEST(outer.work == 2 * w8 + 5);
  BOOST_TEST(f.span > 0);
  BOOST_TEST(outer.span >= 2 * (3 * 8 - 4));  // two fib(8) one after the other
  BOOST_TEST(a.work() >= outer.work + w7);
}

BOOST_AUTO_TEST_CASE(a_region_around_an_unjoined_fork_is_reported_not_measured) {
  tine::analysis_options o;
  o.unit_strands = true;
  const tine::analysis a = tine::analyze(o, region_around_an_open_fork);
  BOOST_TEST(a.regions().empty());
  BOOST_TEST_REQUIRE(a.problems().size() == 1U);
  BOOST_TEST(a.problems()[0].find("forked children not yet joined") != std::string::npos);
}

namespace {

tine::task<> throws_after_a_join(int n) {
  long x = 0;
  co_await tine::fork(&x, fib, n);
  co_await tine::join();
  throw std::runtime_error("from the analysed task");
}

tine::task<double> sum_of(const std::vector<double>& v) {
  double s = 0;
  co_await tine::call(&s, tine::async::reduce, v, 0.0, std::plus<>{});
  co_return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_task_exception_comes_out_and_the_thread_is_free_again) {
  BOOST_CHECK_EXCEPTION(tine::analyze(throws_after_a_join, 10), std::runtime_error,
                        [](const std::runtime_error& e) {
                          return std::string(e.what()) == "from the analysed task";
                        });
  BOOST_TEST(tine::current_worker() == nullptr);
  BOOST_TEST(count_strands(fib, 5).forks() == 7U);
}

BOOST_AUTO_TEST_CASE(algorithms_run_under_analysis_with_the_workers_asked_for) {
  std::vector<double> v(100000, 1.0);
  tine::analysis_options o;
  o.unit_strands = true;
  o.workers = 8;
  const tine::analysis a = tine::analyze(o, sum_of, v);
  BOOST_TEST(a.forks() > 0U);
  BOOST_TEST(a.parallelism() > 8);
  o.workers = 1;  // tine's algorithms make fewer pieces for fewer workers
  const tine::analysis b = tine::analyze(o, sum_of, v);
  BOOST_TEST(b.forks() < a.forks());
}

BOOST_AUTO_TEST_CASE(analyze_on_a_worker_thread_is_refused) {
  tine::inline_scheduler s;
  auto inside = []() -> tine::task<bool> {
    try {
      (void)tine::analyze(fib, 5);
    } catch (const std::logic_error& e) {
      co_return std::string(e.what()).find("called on a worker thread") != std::string::npos;
    }
    co_return false;
  };
  BOOST_TEST(tine::sync_wait(s, inside));
}

BOOST_AUTO_TEST_CASE(work_submitted_elsewhere_stops_the_program_with_a_message) {
  const tine_tests::death_result r = tine_tests::run_in_child([] {
    auto away = []() -> tine::task<> {
      tine::scheduler_ref here = tine::current_scheduler();
      co_await tine::resume_on(here);
    };
    (void)tine::analyze(away);
  });
  BOOST_TEST(r.aborted);
  BOOST_TEST(r.stderr_text.find("tine::analyzer: work was submitted to it from a worker thread") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(reports_are_written_and_unwritable_paths_throw) {
  tine::analysis_options o;
  o.name = "fib \"12\" <&>";
  o.unit_strands = true;
  const tine::analysis a = tine::analyze(o, fib, 12);
  std::ostringstream text;
  a.print(text);
  BOOST_TEST(text.str().find("parallelism") != std::string::npos);
  BOOST_TEST(text.str().find("strands") != std::string::npos);
  const auto dir = private_directory("tine_analyze_test");
  std::filesystem::create_directories(dir);
  a.write_html((dir / "a.html").string());
  a.write_json((dir / "a.json").string());
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream f(p);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  const std::string html = slurp(dir / "a.html");
  const std::string json = slurp(dir / "a.json");
  BOOST_TEST(html.find("<svg") != std::string::npos);
  BOOST_TEST(html.find("fib &quot;12&quot; &lt;&amp;&gt;") != std::string::npos);
  BOOST_TEST(json.find("\"tine_analysis\": 1") != std::string::npos);
  BOOST_TEST(json.find("\"name\": \"fib \\\"12\\\" \\u003c\\u0026\\u003e\"") != std::string::npos);
  BOOST_TEST(json.find("\"p\": 256") != std::string::npos);
  std::filesystem::remove_all(dir);
  BOOST_CHECK_THROW(a.write_json("/nonexistent-dir/a.json"), std::runtime_error);
  BOOST_CHECK_THROW(a.write_html("/nonexistent-dir/a.html"), std::runtime_error);
}

namespace {

tine::task<long> copy_and_fib(std::vector<int> input) {
  long x = 0;
  co_await tine::call(&x, fib, static_cast<int>(input.size()));
  co_return x;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_analyzer_is_a_scheduler_for_blocking_calls) {
  tine::analysis_options o;
  o.unit_strands = true;
  tine::analyzer an(o);
  BOOST_TEST(tine::sync_wait(an, fib, 12) == 144);
  BOOST_TEST(an.result().span() == 3.0 * 12 - 2);
  // The next root replaces the last one's measures.
  std::vector<double> v(1000, 0.5);
  BOOST_TEST(tine::reduce(an, v, 0.0, std::plus<>{}) == 500.0);
  BOOST_TEST(an.result().work() > 0);
  BOOST_TEST(an.result().forks() != fibonacci(13) - 1);
  // With repeats, runs with the first one's graph are kept, the others reported.
  o.repeats = 2;
  tine::analyzer twice(o);
  BOOST_TEST(tine::sync_wait(twice, copy_and_fib, std::vector<int>(10)) == 55);
  BOOST_TEST(tine::sync_wait(twice, copy_and_fib, std::vector<int>(10)) == 55);
  BOOST_TEST(tine::sync_wait(twice, copy_and_fib, std::vector<int>(11)) == 89);
  const tine::analysis a = twice.result();
  BOOST_TEST(a.raw().runs == 2);
  BOOST_TEST(a.forks() == fibonacci(11) - 1);
  BOOST_TEST_REQUIRE(a.problems().size() == 1U);
  BOOST_TEST(a.problems()[0] ==
             "1 of the 3 runs had another graph than the first and were not used");
}

namespace {

tine::task<> throwing_leaf(bool really) {
  if (really) {
    throw std::runtime_error("leaf");
  }
  co_return;
}

tine::task<> counted_leaf(int* started) {
  ++*started;
  co_return;
}

// Forks a child that throws, then two more, and returns how many of those two started.
tine::task<int> forks_after_a_throw() {
  int started = 0;
  try {
    co_await tine::fork(throwing_leaf, true);
    co_await tine::fork(counted_leaf, &started);
    co_await tine::fork(counted_leaf, &started);
    co_await tine::join();
  } catch (const std::runtime_error&) {
  }
  co_return started;
}

tine::task<> stops_its_scope() {
  BOOST_TEST(tine::request_stop());
  BOOST_TEST(tine::stop_requested());
  co_return;
}

tine::task<> stopped_body(int* started) {
  co_await tine::fork(stops_its_scope);
  co_await tine::fork(counted_leaf, started);
  co_await tine::fork(counted_leaf, started);
  co_await tine::join();
}

// A stop scope whose first child asks it to stop: 0 when the scope reports the stop and its later
// forks started nothing; 100 plus their number when it reports "completed".
tine::task<int> stop_scope_with_later_forks() {
  int started = 0;
  bool completed = false;
  co_await tine::call(&completed, tine::stop_scope, stopped_body, &started);
  co_return completed ? 100 + started : started;
}

tine::analysis_options counting() {
  tine::analysis_options o;
  o.unit_strands = true;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_fork_after_a_sibling_threw_starts_no_child_as_on_one_worker) {
  tine::inline_scheduler one;
  tine::analyzer an(counting());
  BOOST_TEST(tine::sync_wait(one, forks_after_a_throw) == 0);
  BOOST_TEST(tine::sync_wait(an, forks_after_a_throw) == 0);
  BOOST_TEST(an.result().forks() == 1U);  // the skipped forks are not in the graph
}

BOOST_AUTO_TEST_CASE(a_stopped_scope_stops_its_forks_and_says_so_as_on_one_worker) {
  tine::inline_scheduler one;
  tine::analyzer an(counting());
  BOOST_TEST(tine::sync_wait(one, stop_scope_with_later_forks) == 0);
  BOOST_TEST(tine::sync_wait(an, stop_scope_with_later_forks) == 0);
  BOOST_TEST(an.result().forks() == 1U);
}

// The random programs of the core's test (forks, calls into subtrees that fork, joins, throws
// and handlers at random nodes), against the serial model of the rule, node for node.
BOOST_AUTO_TEST_CASE(random_programs_with_exceptions_run_as_on_one_worker) {
  using namespace tine_tests::fork_programs;
  tine::analyzer an(counting());
  const findings f = run_programs(an, true, 50001, 300, 120);
  BOOST_TEST(f.count == 0U, f.text());
}

namespace {

tine::task<> region_without_forks() {
  tine::region r("called, no forks");
  co_return;
}

tine::task<> region_around_a_scope() {
  tine::region r("called, a scope");
  co_await tine::fork(leaf);
  co_await tine::call(leaf);
  co_await tine::join();
}

// Regions in tasks called inside the caller's fork-join scope: each obeys region.hpp's rule.
tine::task<> calls_regions_inside_its_scope() {
  co_await tine::fork(leaf);
  co_await tine::call(region_without_forks);
  co_await tine::call(region_around_a_scope);
  { tine::region r("between a fork and its join, no forks"); }
  co_await tine::join();
}

// A region that begins inside an open scope and joins it: not around whole scopes.
tine::task<> region_begun_inside_an_open_scope() {
  co_await tine::fork(leaf);
  {
    tine::region r("straddles");
    co_await tine::fork(leaf);
    co_await tine::join();  // joins the fork made before the region began too
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(regions_in_tasks_called_inside_a_scope_are_measured) {
  const tine::analysis a = tine::analyze(counting(), calls_regions_inside_its_scope);
  BOOST_TEST(a.problems().empty());
  BOOST_TEST_REQUIRE(a.regions().size() == 3U);
  BOOST_TEST(a.regions()[0].name == "called, no forks");
  BOOST_TEST(a.regions()[1].name == "called, a scope");
  BOOST_TEST(a.regions()[2].name == "between a fork and its join, no forks");
  for (const tine::region_summary& r : a.regions()) {
    BOOST_TEST(r.count == 1U);
    BOOST_TEST(r.work >= 1.0);
    BOOST_TEST(r.span >= 1.0);
    BOOST_TEST(r.span <= r.work);
  }
  BOOST_TEST(a.regions()[1].parallelism() > 1.0);  // its fork and call ran side by side
}

BOOST_AUTO_TEST_CASE(a_region_begun_inside_an_open_scope_is_reported_not_measured) {
  const tine::analysis a = tine::analyze(counting(), region_begun_inside_an_open_scope);
  BOOST_TEST(a.regions().empty());
  BOOST_TEST_REQUIRE(a.problems().size() == 1U);
  BOOST_TEST(a.problems()[0].find("around whole fork-join scopes") != std::string::npos);
}

namespace {

// [docs:analysis_regions]
tine::task<> copy_then_sort(const std::vector<double>& source) {
  std::vector<double> v;
  {
    tine::region r("copy");
    v = source;
  }
  tine::region r("sort");
  co_await tine::call(tine::async::sort, v);
}
// [docs:analysis_regions end]

}  // namespace

BOOST_AUTO_TEST_CASE(the_documentation_examples_run) {
  std::vector<double> source(200'000);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (double& x : source) {
    x = uniform(rng);
  }
  const auto dir = private_directory("tine_analyze_docs");
  std::filesystem::create_directories(dir);
  const std::string page = (dir / "sort.html").string();
  // [docs:analyze_sort]
  tine::analysis_options options;
  options.name = "copy, then tine::sort";
  options.repeats = 3;  // each strand's shortest time over three runs
  tine::analysis a = tine::analyze(options, copy_then_sort, source);
  a.print(std::cout);
  a.write_html(page);  // the curves, offline
  // [docs:analyze_sort end]
  BOOST_TEST_REQUIRE(a.regions().size() == 2U);
  BOOST_TEST(a.regions()[0].name == "copy");
  BOOST_TEST(a.regions()[0].parallelism() == 1.0);  // one strand: work is span
  BOOST_TEST(a.regions()[1].name == "sort");
  BOOST_TEST(a.regions()[1].parallelism() > 2);
  BOOST_TEST(std::filesystem::file_size(page) > 1000U);
  std::filesystem::remove_all(dir);

  // [docs:analyzer_scheduler]
  tine::analyzer an;  // a scheduler: code that takes one is analysed as it is
  std::vector<double> values(1'000'000, 0.5);
  double sum = tine::reduce(an, values, 0.0, std::plus<>{});
  tine::analysis r = an.result();
  // [docs:analyzer_scheduler end]
  BOOST_TEST(sum == 500'000.0);
  BOOST_TEST(r.forks() > 0U);
  BOOST_TEST(r.parallelism() > 1);
}
