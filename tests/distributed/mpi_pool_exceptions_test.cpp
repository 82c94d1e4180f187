// Exceptions on a distributed pool (run by mpiexec on 2 and 3 ranks), each as it behaves on one
// rank:
// - a std::runtime_error thrown 5,000 frames deep reaches every rank's sync_wait as itself;
// - a root that forks and catches 60,000 std::invalid_argument one after another catches every
//   one (each stored exception is freed when it is taken, not at the root's end);
// - the tour's pattern, a slow fork, then a fork that throws, caught by type around the join,
//   catches by type after a steal, for the standard types, a std::system_error with its code, a
//   program's types registered (with its state, and with its message only), a type derived from
//   std::runtime_error and not registered (caught as std::runtime_error), and an int (a
//   tine::mpi::remote_error);
// - an exception escaping the root reaches every rank's sync_wait with its type.

#include <tine/distributed/distributed.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "tests/distributed/mpi_check.hpp"

namespace {

// A program's exception types, registered to travel: one with state beyond its message, one
// without (docs/distributed.md shows these).
// [docs:register-types]
struct parse_error : std::runtime_error {
  parse_error(const std::string& what, int line) : std::runtime_error(what), line(line) {}
  int line;
};

struct config_error : std::runtime_error {  // its whole state is its message
  using std::runtime_error::runtime_error;
};
// [docs:register-types end]

// Derived from a standard type and not registered: travels as std::runtime_error.
struct unregistered_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class kind : int {
  invalid_argument,
  out_of_range,
  runtime_error,
  system_error,
  bad_alloc,
  parse_error,
  config_error,
  unregistered,
  integer,
  count
};

[[noreturn]] void throw_kind(kind k) {
  switch (k) {
    case kind::invalid_argument:
      throw std::invalid_argument("bad argument");
    case kind::out_of_range:
      throw std::out_of_range("out of range");
    case kind::runtime_error:
      throw std::runtime_error("runtime");
    case kind::system_error:
      throw std::system_error(std::make_error_code(std::errc::timed_out), "waiting");
    case kind::bad_alloc:
      throw std::bad_alloc();
    case kind::parse_error:
      throw parse_error("parse failed", 42);
    case kind::config_error:
      throw config_error("no such key");
    case kind::unregistered:
      throw unregistered_error("unregistered");
    case kind::integer:
    case kind::count:
      break;
  }
  throw 7;
}

tine::task<int> thrower(kind k) {
  throw_kind(k);
  co_return 0;
}

// 1 when the exception is caught as its own type with its state, 0 otherwise.
int caught_as_itself(kind k) {
  try {
    throw;
  } catch (const parse_error& e) {
    return k == kind::parse_error && e.line == 42 && std::string(e.what()) == "parse failed";
  } catch (const config_error& e) {
    return k == kind::config_error && std::string(e.what()) == "no such key";
  } catch (const std::invalid_argument& e) {
    return k == kind::invalid_argument && std::string(e.what()) == "bad argument";
  } catch (const std::out_of_range& e) {
    return k == kind::out_of_range && std::string(e.what()) == "out of range";
  } catch (const std::system_error& e) {
    return k == kind::system_error && e.code() == std::errc::timed_out &&
           std::string(e.what()) ==
               "waiting: " + std::make_error_code(std::errc::timed_out).message();
  } catch (const tine::mpi::remote_error& e) {
    return k == kind::integer &&
           std::string(e.what()) == "an exception of a type not derived from std::exception";
  } catch (const std::runtime_error& e) {
    // unregistered_error arrives as its standard base, with its message
    return (k == kind::runtime_error && std::string(e.what()) == "runtime") ||
           (k == kind::unregistered && std::string(e.what()) == "unregistered");
  } catch (const std::bad_alloc&) {
    return k == kind::bad_alloc;
  } catch (int v) {
    // An int stays an int on the rank that threw it; it arrives elsewhere as a remote_error.
    return k == kind::integer && v == 7;
  } catch (...) {
    return 0;
  }
}

// Busy for `us` microseconds: long enough for another rank to steal the rest of the parent.
tine::task<long> spin(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
  co_return 1;
}

// The tour's pattern: a slow fork (a thief takes the rest), then a fork that throws, caught by
// type around the join.
tine::task<int> slow_then_throw(kind k) {
  long a = 0;
  int b = 0;
  co_await tine::fork(&a, spin, 5000);
  co_await tine::fork(&b, thrower, k);
  try {
    co_await tine::join();
  } catch (...) {
    co_return caught_as_itself(k);
  }
  co_return 0;
}

// Every kind at once, in parallel: how many were caught as themselves.
tine::task<int> all_kinds() {
  int caught[static_cast<int>(kind::count)] = {};
  for (int k = 0; k < static_cast<int>(kind::count); ++k) {
    co_await tine::fork(&caught[k], slow_then_throw, static_cast<kind>(k));
  }
  co_await tine::join();
  int total = 0;
  for (int c : caught) {
    total += c;
  }
  co_return total;
}

tine::task<int> deep_throw(int d) {
  if (d == 0) {
    throw std::runtime_error("thrown 5000 frames deep");
  }
  int r = 0;
  co_await tine::fork(&r, deep_throw, d - 1);
  co_await tine::join();
  co_return r;
}

tine::task<int> throws_numbered(int i) {
  throw std::invalid_argument("bad " + std::to_string(i));
  co_return 0;
}

// Forks and catches `n` exceptions one after another; the count caught with the right message.
tine::task<long> catch_many(int n) {
  long caught = 0;
  for (int i = 0; i < n; ++i) {
    int r = 0;
    co_await tine::fork(&r, throws_numbered, i);
    try {
      co_await tine::join();
    } catch (const std::invalid_argument& e) {
      caught += std::string(e.what()) == "bad " + std::to_string(i) ? 1 : 0;
    }
  }
  co_return caught;
}

std::uint64_t total_steals(const tine::mpi_pool<>& pool) {
  std::uint64_t mine = pool.counters().steals;
  std::uint64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  tine::mpi::environment env(argc, argv);
  tine_test::start_checks();
  // [docs:register-calls]
  // In main, after the environment, on every rank:
  tine::mpi::register_exception<parse_error>(
      "parse_error", [](const parse_error& e) { return std::to_string(e.line); },
      [](std::string_view bytes, std::string_view what) {
        return parse_error(std::string(what), std::stoi(std::string(bytes)));
      });
  tine::mpi::register_exception<config_error>("config_error");
  // [docs:register-calls end]
  {
    tine::mpi_pool pool;

    bool right = false;
    try {
      tine::sync_wait(pool, deep_throw, 5000);
    } catch (const std::runtime_error& e) {
      right = std::string(e.what()) == "thrown 5000 frames deep";
    }
    CHECK(right);

    CHECK(tine::sync_wait(pool, catch_many, 60000) == 60000);

    // Catch by type after steals: 30 roots, every kind caught as itself in each.
    const std::uint64_t before = total_steals(pool);
    int wrong = 0;
    for (int i = 0; i < 30; ++i) {
      wrong += tine::sync_wait(pool, all_kinds) == static_cast<int>(kind::count) ? 0 : 1;
    }
    const std::uint64_t stolen = total_steals(pool) - before;
    if (tine_test::my_rank == 0) {
      std::printf("catch by type: %d of 30 roots wrong, %lu steals\n", wrong,
                  static_cast<unsigned long>(stolen));
    }
    CHECK(wrong == 0);
    CHECK(stolen > 0);

    // The root's own exception reaches every rank with its type.
    for (int k = 0; k < static_cast<int>(kind::count); ++k) {
      int caught = 0;
      try {
        tine::sync_wait(pool, thrower, static_cast<kind>(k));
      } catch (...) {
        caught = caught_as_itself(static_cast<kind>(k));
      }
      if (caught != 1) {
        std::fprintf(stderr, "rank %d: the root's exception of kind %d arrived otherwise\n",
                     tine_test::my_rank, k);
      }
      CHECK(caught == 1);
    }
  }
  return tine_test::finish("mpi_pool_exceptions_test");
}
