// Allocation failure while a scheduler is built, runs its first root and is destroyed, and while
// roots are spawned and their futures awaited and combined: an injection harness makes one
// allocation fail, the first, then the second, ... until the scheduler's whole life makes fewer
// allocations than the point chosen. Two sweeps per scheduler:
// - operator new throws std::bad_alloc at its n-th call (every replaceable form, aligned and
//   nothrow ones included: the nothrow ones return null; //tests:failing_new);
// - malloc (and calloc, realloc, aligned_alloc, posix_memalign, memalign) returns null at its
//   n-th call, in tine, the standard library, hwloc and glibc's threads alike. The functions are
//   interposed in this executable, which the sanitizers' runtimes also do: that sweep runs only
//   in builds without them.
// Each point runs in a child process (a crash, a hang or a wrong result must be reported, not end
// the test) and must end with a scheduler that works (its root's result checked) or with
// std::bad_alloc or std::system_error thrown to the caller.
//
// With hwloc, tine loads the machine once per process (policies/topology.cpp), and hwloc does not
// survive every allocation failure while it loads. So the sweeps of each scheduler run once the
// machine is loaded (a pool built first, as in a program whose first pool came before), and one
// sweep of the first pool of a process checks that whatever crashes does so inside hwloc: a
// crash is classified in the child by the libraries on its stack.
#include <boost/test/unit_test.hpp>

#include <dlfcn.h>
#include <execinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <tine/core/core.hpp>
#include <tine/schedulers/busy_pool.hpp>
#include <tine/schedulers/inline_scheduler.hpp>
#include <tine/schedulers/lazy_pool.hpp>
#include <tine/schedulers/stats_observer.hpp>
#include <tine/testing/simple_pool.hpp>

#include "tests/failing_new.hpp"
#include "tests/sanitizers.hpp"

namespace {

enum class mode : int { none, operator_new, malloc };

std::atomic<int> g_mode{0};
std::atomic<long> g_calls{0};
std::atomic<long> g_fail_at{0};

// Whether this call (counted in `m`'s sweep) is the one that fails. relaxed: a count shared by
// every thread; which thread's call is the n-th is up to the run. Used by the malloc sweep only,
// which sanitized builds leave out.
[[maybe_unused]] bool fail_now(mode m) noexcept {
  if (g_mode.load(std::memory_order_relaxed) != static_cast<int>(m)) {
    return false;
  }
  return g_calls.fetch_add(1, std::memory_order_relaxed) + 1 ==
         g_fail_at.load(std::memory_order_relaxed);
}

// The operator new sweep is //tests:failing_new's; the malloc sweep is this file's.
void arm(mode m, long n) {
  if (m == mode::operator_new) {
    tine_tests::failing_new::arm(n);
    return;
  }
  g_calls.store(0);
  g_fail_at.store(n);
  g_mode.store(static_cast<int>(m));
}

long disarm() {
  const long new_calls = tine_tests::failing_new::disarm();
  if (g_mode.load() == static_cast<int>(mode::none)) {
    return new_calls;
  }
  g_mode.store(static_cast<int>(mode::none));
  return g_calls.load();
}

}  // namespace

#ifndef TINE_TEST_SANITIZED
// glibc's own allocator, under the names it exports for interposers.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);

void* malloc(std::size_t n) {
  if (fail_now(mode::malloc)) {
    errno = ENOMEM;
    return nullptr;
  }
  return __libc_malloc(n);
}
void* calloc(std::size_t count, std::size_t size) {
  if (fail_now(mode::malloc)) {
    errno = ENOMEM;
    return nullptr;
  }
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t n) {
  if (fail_now(mode::malloc)) {
    errno = ENOMEM;
    return nullptr;
  }
  return __libc_realloc(p, n);
}
void* memalign(std::size_t align, std::size_t n) {
  if (fail_now(mode::malloc)) {
    errno = ENOMEM;
    return nullptr;
  }
  return __libc_memalign(align, n);
}
void* aligned_alloc(std::size_t align, std::size_t n) { return memalign(align, n); }
int posix_memalign(void** out, std::size_t align, std::size_t n) {
  void* p = memalign(align, n);
  if (p == nullptr) {
    return ENOMEM;
  }
  *out = p;
  return 0;
}
}  // extern "C"
#endif

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

// How a child ended (its exit code, or a signal).
enum exit_code : int {
  worked = 0,  // built, ran its root, destroyed
  threw_bad_alloc = 10,
  threw_system_error = 11,
  threw_other = 12,
  wrong_result = 13,
  past_the_end = 20,     // the run made fewer allocations than the point chosen
  crashed_in_hwloc = 30  // a crash signal with libhwloc on the stack
};

struct sweep_result {
  long points = 0;
  long worked = 0;
  long bad_alloc = 0;
  long system_error = 0;
  long hwloc_crashes = 0;
  std::vector<std::string> failures;  // crashes, hangs, other exceptions, wrong results
};

// The child's handler of crash signals: exits with crashed_in_hwloc if libhwloc is on the stack,
// else dies of the signal. (backtrace and dladdr are not async-signal-safe; in a child that is
// crashing anyway, and with backtrace's library loaded beforehand, they serve.)
void classify_crash(int sig) {
  void* frames[128];
  const int n = ::backtrace(frames, 128);
  for (int i = 0; i < n; ++i) {
    Dl_info info;
    if (::dladdr(frames[i], &info) != 0 && info.dli_fname != nullptr &&
        std::strstr(info.dli_fname, "libhwloc") != nullptr) {
      ::_exit(crashed_in_hwloc);
    }
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Seconds a child may take before it counts as hung (a scheduler's life here takes milliseconds).
constexpr unsigned hang_seconds = 60;

// Runs `life` in a child with allocation `n` of sweep `m` failing.
template <typename Life>
int run_point(mode m, long n, Life life) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::abort();
  }
  if (pid == 0) {
    void* warm[1];
    ::backtrace(warm, 1);  // loads what backtrace needs now, not in the signal handler
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) {
      std::signal(sig, classify_crash);
    }
    ::alarm(hang_seconds);
    int code = worked;
    arm(m, n);
    try {
      code = life() ? worked : wrong_result;
    } catch (const std::bad_alloc&) {
      code = threw_bad_alloc;
    } catch (const std::system_error&) {
      code = threw_system_error;
    } catch (...) {
      code = threw_other;
    }
    const long made = disarm();
    ::_exit(made < n ? past_the_end : code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    return -WTERMSIG(status);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

template <typename Life>
sweep_result sweep(mode m, Life life) {
  sweep_result r;
  for (long n = 1;; ++n) {
    const int code = run_point(m, n, life);
    if (code == past_the_end) {
      break;
    }
    ++r.points;
    if (code == worked) {
      ++r.worked;
    } else if (code == threw_bad_alloc) {
      ++r.bad_alloc;
    } else if (code == threw_system_error) {
      ++r.system_error;
    } else if (code == crashed_in_hwloc) {
      ++r.hwloc_crashes;
    } else {
      std::ostringstream what;
      what << "allocation " << n << ": ";
      if (code == -SIGALRM) {
        what << "hung";
      } else if (code < 0) {
        what << "signal " << -code;
      } else if (code == threw_other) {
        what << "an exception other than bad_alloc or system_error";
      } else {
        what << "wrong result (exit " << code << ")";
      }
      r.failures.push_back(what.str());
    }
  }
  return r;
}

// A scheduler's whole life: built, one root run (its result checked), destroyed.
template <typename Sched, typename... A>
bool life_of(A... args) {
  Sched sched(args...);
  return tine::sync_wait(sched, fib, 15) == 610;
}

// Spawned roots: a pool built, two roots spawned and their futures' values checked.
template <typename Sched, typename... A>
bool spawned_life(A... args) {
  Sched sched(args...);
  tine::future<long> a = tine::spawn(sched, fib, 15);
  tine::future<long> b = tine::spawn(sched, fib, 12);
  return a.get() == 610 && b.get() == 144;
}

// A task that spawns on another pool and awaits the future (its worker goes on meanwhile).
tine::task<long> awaits_other(tine::lazy_pool<>* other) {
  tine::future<long> g = tine::spawn(*other, fib, 12);
  long a = 0;
  co_await tine::call(&a, fib, 11);
  co_return a + co_await std::move(g);
}

bool awaited_life() {
  tine::lazy_pool<> other(1);
  tine::busy_pool<> pool(1);
  return tine::spawn(pool, awaits_other, &other).get() == 144 + 89;
}

// Futures combined (when_all, both forms) and a completion callback.
bool combined_life() {
  tine::busy_pool<> pool(2);
  std::vector<tine::future<long>> some;
  for (int i = 0; i < 4; ++i) {
    some.push_back(tine::spawn(pool, fib, 10 + i));
  }
  tine::future<std::vector<long>> all = tine::when_all(std::move(some));
  auto pair = tine::when_all(tine::spawn(pool, fib, 9), tine::spawn(pool, fib, 8));
  std::atomic<bool> called{false};
  pair.on_complete([&called] { called.store(true); });
  const std::vector<long> values = all.get();
  const auto [x, y] = pair.get();
  return values == std::vector<long>{55, 89, 144, 233} && x == 34 && y == 21 && called.load();
}

std::vector<mode> sweep_modes() {
  std::vector<mode> modes = {mode::operator_new};
#ifndef TINE_TEST_SANITIZED
  modes.push_back(mode::malloc);
#endif
  return modes;
}

const char* how(mode m) {
  return m == mode::malloc ? "malloc returns null" : "operator new throws";
}

void report(const char* name, mode m, const sweep_result& r) {
  BOOST_TEST_MESSAGE(name << ", " << how(m) << ": " << r.points << " allocation points; "
                          << r.worked << " worked, " << r.bad_alloc << " std::bad_alloc, "
                          << r.system_error << " std::system_error, " << r.hwloc_crashes
                          << " crashed inside hwloc");
  std::ostringstream failures;
  for (const std::string& f : r.failures) {
    failures << "\n  " << f;
  }
  BOOST_TEST(r.failures.empty(), name << ", " << how(m) << ":" << failures.str());
  // The sweep reached the scheduler's allocations, and some failure reached the caller.
  BOOST_TEST(r.points > 0);
  BOOST_TEST(r.bad_alloc + r.system_error > 0, name << ", " << how(m));
}

// Builds a pool once in this process, so that the machine is loaded before the children fork.
void load_the_machine() {
  static const bool loaded = [] {
    tine::busy_pool<> pool(1);
    return tine::sync_wait(pool, fib, 5) == 5;
  }();
  BOOST_TEST_REQUIRE(loaded);
}

template <typename Life>
void check_sweeps(const char* name, Life life) {
  load_the_machine();
  for (mode m : sweep_modes()) {
    const sweep_result r = sweep(m, life);
    report(name, m, r);
    BOOST_TEST(r.hwloc_crashes == 0, name << ", " << how(m) << ": the machine was loaded before");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(construction_out_of_memory)

// First: no pool has been built in this process yet, so each child loads the machine. Only hwloc
// may crash (with hwloc; without it, discovery is tine's own code and nothing may).
BOOST_AUTO_TEST_CASE(the_first_pool_of_a_process, *boost::unit_test::timeout(1200)) {
  for (mode m : sweep_modes()) {
    const sweep_result r = sweep(m, [] { return life_of<tine::busy_pool<>>(std::size_t{2}); });
    report("the first busy_pool(2)", m, r);
    if (!tine::topology::discovers_with_hwloc()) {
      BOOST_TEST(r.hwloc_crashes == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(busy_pool, *boost::unit_test::timeout(1200)) {
  check_sweeps("busy_pool(2)", [] { return life_of<tine::busy_pool<>>(std::size_t{2}); });
}

BOOST_AUTO_TEST_CASE(lazy_pool, *boost::unit_test::timeout(1200)) {
  check_sweeps("lazy_pool(2)", [] { return life_of<tine::lazy_pool<>>(std::size_t{2}); });
}

BOOST_AUTO_TEST_CASE(lazy_pool_observed, *boost::unit_test::timeout(1200)) {
  check_sweeps("lazy_pool(2, stats)", [] {
    tine::stats_observer stats;
    tine::lazy_pool<tine::numa_victims, tine::stats_observer> pool(2, stats);
    return tine::sync_wait(pool, fib, 15) == 610;
  });
}

BOOST_AUTO_TEST_CASE(inline_scheduler, *boost::unit_test::timeout(1200)) {
  check_sweeps("inline_scheduler", [] { return life_of<tine::inline_scheduler>(); });
}

BOOST_AUTO_TEST_CASE(user_written_pool, *boost::unit_test::timeout(1200)) {
  check_sweeps("simple_pool(2)",
               [] { return life_of<tine::testing::simple_pool>(std::size_t{2}); });
}

// Spawning and completing futures: a failed allocation reaches the caller (from spawn, from
// when_all, or as the future's exception from get()), never a crash, a hang or a lost root.
BOOST_AUTO_TEST_CASE(spawned_roots, *boost::unit_test::timeout(1200)) {
  check_sweeps("spawn on busy_pool(2)",
               [] { return spawned_life<tine::busy_pool<>>(std::size_t{2}); });
  check_sweeps("spawn on inline_scheduler", [] { return spawned_life<tine::inline_scheduler>(); });
}

BOOST_AUTO_TEST_CASE(awaited_futures, *boost::unit_test::timeout(1200)) {
  check_sweeps("a task awaiting a future of another pool", [] { return awaited_life(); });
}

BOOST_AUTO_TEST_CASE(combined_futures, *boost::unit_test::timeout(1200)) {
  check_sweeps("when_all and on_complete", [] { return combined_life(); });
}

BOOST_AUTO_TEST_SUITE_END()
