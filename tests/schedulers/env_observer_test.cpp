// Observability switched on from the environment (env_observer.hpp): each case runs a program in
// a child process, with and without TINE_TRACE / TINE_STATS, and checks what it wrote: nothing
// without them; with them, a trace file that parses and names the pool's workers, a second pool's
// trace beside it, the statistics table on stderr; a pool given an observer of its own ignores
// them; a malformed TINE_TRACE_EVENTS stops the program with a message.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/schedulers/stats_observer.hpp>

#include "tests/core/death.hpp"
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

// The program the cases run: a busy_pool and then a lazy_pool of two workers, each computing
// fib(22); exits 3 on a wrong result.
void program() {
  {
    tine::busy_pool pool(2);
    if (tine::sync_wait(pool, fib, 22) != 17711) {
      std::_Exit(3);
    }
  }
  {
    tine::lazy_pool pool(2);
    if (tine::sync_wait(pool, fib, 22) != 17711) {
      std::_Exit(3);
    }
  }
}

// A fresh directory for one case's files.
std::filesystem::path scratch(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") /
                              ("env_observer_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs program() in a child with `vars` set ("NAME=value" pairs) and the three variables unset
// otherwise.
template <typename Body = void (*)()>
tine_tests::death_result run_with(std::initializer_list<std::pair<const char*, std::string>> vars,
                                  Body body = program) {
  return tine_tests::run_in_child([&] {
    ::unsetenv("TINE_TRACE");
    ::unsetenv("TINE_STATS");
    ::unsetenv("TINE_TRACE_EVENTS");
    for (const auto& [name, value] : vars) {
      ::setenv(name, value.c_str(), 1);
    }
    body();
  });
}

// The trace at `p` parses and is the trace of a pool of two workers that did some work.
void check_trace_file(const std::filesystem::path& p) {
  BOOST_TEST_REQUIRE(std::filesystem::exists(p), p.string() << " was not written");
  const mini_json::value doc = mini_json::parse(read_file(p));
  BOOST_TEST(doc.at("otherData").at("producer").str == "tine");
  BOOST_TEST(doc.at("otherData").at("workers").num == 2.0);
  std::size_t busy = 0;
  for (const mini_json::value& e : doc.at("traceEvents").arr) {
    busy += e.at("ph").str == "X" && e.at("name").str == "busy" ? 1 : 0;
  }
  BOOST_TEST(busy >= 1u, p.string() << " holds no busy span");
}

}  // namespace

BOOST_AUTO_TEST_CASE(unset_writes_nothing) {
  const auto dir = scratch("unset");
  const tine_tests::death_result r = run_with({});
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(r.stderr_text.empty(), "stderr: " << r.stderr_text);
  BOOST_TEST(std::filesystem::is_empty(dir));
  // Empty and "0" are off too.
  const tine_tests::death_result off =
      run_with({{"TINE_STATS", "0"}, {"TINE_TRACE", ""}, {"TINE_TRACE_EVENTS", "10"}});
  BOOST_TEST(off.exit_code == 0);
  BOOST_TEST(off.stderr_text.empty(), "stderr: " << off.stderr_text);
}

BOOST_AUTO_TEST_CASE(trace_written_per_pool) {
  const auto dir = scratch("trace");
  const tine_tests::death_result r = run_with({{"TINE_TRACE", (dir / "run.json").string()}});
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(r.stderr_text.empty(), "stderr: " << r.stderr_text);
  check_trace_file(dir / "run.json");    // the busy_pool's
  check_trace_file(dir / "run.1.json");  // the lazy_pool's
  BOOST_TEST(!std::filesystem::exists(dir / "run.2.json"));
}

BOOST_AUTO_TEST_CASE(stats_printed_to_stderr) {
  const tine_tests::death_result r = run_with({{"TINE_STATS", "1"}});
  BOOST_TEST(r.exit_code == 0);
  const std::string& e = r.stderr_text;
  const auto busy = e.find("tine: TINE_STATS: busy_pool of 2 workers\nworker ");
  const auto lazy = e.find("tine: TINE_STATS: lazy_pool of 2 workers\nworker ");
  BOOST_TEST_REQUIRE(busy != std::string::npos, "stderr: " << e);
  BOOST_TEST_REQUIRE(lazy != std::string::npos, "stderr: " << e);
  BOOST_TEST(busy < lazy);
  BOOST_TEST(e.find("\ntotal ", busy) < lazy);
  BOOST_TEST(e.find("steals by victim (row: thief, column: victim)", lazy) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(both_and_a_small_buffer) {
  const auto dir = scratch("both");
  const tine_tests::death_result r = run_with(
      {{"TINE_TRACE", (dir / "t").string()}, {"TINE_STATS", "yes"}, {"TINE_TRACE_EVENTS", "4"}});
  BOOST_TEST(r.exit_code == 0);
  // Without ".json" the number is appended; four events per worker cannot hold a run.
  BOOST_TEST(std::filesystem::exists(dir / "t"));
  BOOST_TEST(std::filesystem::exists(dir / "t.1"));
  const mini_json::value doc = mini_json::parse(read_file(dir / "t"));
  BOOST_TEST(doc.at("otherData").at("dropped_events").num > 0.0);
  BOOST_TEST(r.stderr_text.find("events dropped (full buffers); raise TINE_TRACE_EVENTS") !=
             std::string::npos);
  BOOST_TEST(r.stderr_text.find("TINE_STATS: busy_pool") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(pool_with_its_own_observer_ignores_them) {
  const auto dir = scratch("own");
  const tine_tests::death_result r =
      run_with({{"TINE_TRACE", (dir / "x.json").string()}, {"TINE_STATS", "1"}}, [] {
        tine::stats_observer stats;
        {
          tine::busy_pool pool(2, stats);
          if (tine::sync_wait(pool, fib, 20) != 6765) {
            std::_Exit(3);
          }
        }
        if (stats.report().total().submissions != 1) {
          std::_Exit(4);
        }
      });
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(r.stderr_text.empty(), "stderr: " << r.stderr_text);
  BOOST_TEST(std::filesystem::is_empty(dir));
}

BOOST_AUTO_TEST_CASE(unwritable_trace_is_reported) {
  const tine_tests::death_result r = run_with({{"TINE_TRACE", "/nonexistent-dir-of-tine/t.json"}});
  BOOST_TEST(r.exit_code == 0);  // the program's work is done; only the trace is lost
  BOOST_TEST(r.stderr_text.find("tine: TINE_TRACE: tine::trace_observer: cannot write the trace "
                                "to '/nonexistent-dir-of-tine/t.json'") != std::string::npos,
             "stderr: " << r.stderr_text);
}

BOOST_AUTO_TEST_CASE(malformed_event_count_stops_the_program) {
  for (const char* bad : {"many", "1", "-5", "12x"}) {
    const tine_tests::death_result r =
        run_with({{"TINE_TRACE", "/tmp/unused.json"}, {"TINE_TRACE_EVENTS", bad}});
    BOOST_TEST(r.aborted, "TINE_TRACE_EVENTS=" << bad);
    BOOST_TEST(
        r.stderr_text.find("TINE_TRACE_EVENTS must be a number of events per worker, at least 2") !=
        std::string::npos);
  }
}
