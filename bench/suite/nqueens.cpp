/// nqueens: count the placements of n non-attacking queens (BOTS/libfork form): a task per legal
/// partial board; each child gets its own copy of the board in the parent's frame. One task = one
/// recursive invocation (one legal partial board).

#include <array>
#include <string>
#include <string_view>

#include "bench/suite/harness.hpp"

namespace {

constexpr int max_n = 16;
using board = std::array<signed char, max_n>;

/// Queens in rows 0..j-1 are at columns a[0..j-1]; is the one in row j-1 safe?
bool ok(int j, const board& a) {
  for (int i = 0; i < j - 1; ++i) {
    int d = a[j - 1] - a[i];
    if (d == 0 || d == j - 1 - i || d == -(j - 1 - i)) {
      return false;
    }
  }
  return true;
}

long nq_serial(int n, int j, const board& a) {
  if (j == n) {
    return 1;
  }
  long sum = 0;
  for (int i = 0; i < n; ++i) {
    board b = a;
    b[j] = static_cast<signed char>(i);
    if (ok(j + 1, b)) {
      sum += nq_serial(n, j + 1, b);
    }
  }
  return sum;
}

std::uint64_t nq_count(int n, int j, const board& a) {
  if (j == n) {
    return 1;
  }
  std::uint64_t c = 1;
  for (int i = 0; i < n; ++i) {
    board b = a;
    b[j] = static_cast<signed char>(i);
    if (ok(j + 1, b)) {
      c += nq_count(n, j + 1, b);
    }
  }
  return c;
}

tine::task<long> nq_tine(int n, int j, const board* a) {
  if (j == n) {
    co_return 1;
  }
  std::array<board, max_n> boards;
  std::array<long, max_n> parts{};
  for (int i = 0; i < n; ++i) {
    boards[i] = *a;
    boards[i][j] = static_cast<signed char>(i);
    if (ok(j + 1, boards[i])) {
      co_await tine::fork(&parts[i], nq_tine, n, j + 1, &boards[i]);
    }
  }
  co_await tine::join();
  long sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += parts[i];
  }
  co_return sum;
}

long nq_tbb(int n, int j, const board& a) {
  if (j == n) {
    return 1;
  }
  std::array<board, max_n> boards;
  std::array<long, max_n> parts{};
  tbb::task_group g;
  for (int i = 0; i < n; ++i) {
    boards[i] = a;
    boards[i][j] = static_cast<signed char>(i);
    if (ok(j + 1, boards[i])) {
      g.run([&, i] { parts[i] = nq_tbb(n, j + 1, boards[i]); });
    }
  }
  g.wait();
  long sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += parts[i];
  }
  return sum;
}

long nq_omp(int n, int j, const board& a) {
  if (j == n) {
    return 1;
  }
  std::array<board, max_n> boards;
  std::array<long, max_n> parts{};
  for (int i = 0; i < n; ++i) {
    boards[i] = a;
    boards[i][j] = static_cast<signed char>(i);
    if (ok(j + 1, boards[i])) {
#pragma omp task default(none) shared(parts, boards) firstprivate(n, j, i)
      parts[i] = nq_omp(n, j + 1, boards[i]);
    }
  }
#pragma omp taskwait
  long sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += parts[i];
  }
  return sum;
}

struct nqueens_workload {
  static constexpr const char* name = "nqueens";
  using input = int;
  using result = long;

  static input parse(std::string_view s) {
    int n = std::stoi(std::string(s));
    if (n < 1 || n > max_n) {
      throw std::invalid_argument("nqueens: n must be in 1..16");
    }
    return n;
  }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {12}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 8; }

  static result serial(input n) { return nq_serial(n, 0, board{}); }
  template <class S>
  static result tine(S& s, input n) {
    static const board empty{};
    return tine::sync_wait(s, nq_tine, n, 0, &empty);
  }
  static result tbb(input n) { return nq_tbb(n, 0, board{}); }
  static result omp(input n) { return nq_omp(n, 0, board{}); }

  static std::uint64_t tasks(input n) { return nq_count(n, 0, board{}); }
  static std::string check(input n, result got, result) {
    // OEIS A000170.
    static constexpr long solutions[] = {1,   1,   0,    0,     2,     10,     4,       40,      92,
                                         352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
    return got == solutions[n] ? ""
                               : "wrong count " + std::to_string(got) + ", expected " +
                                     std::to_string(solutions[n]);
  }
};

}  // namespace

TINE_BENCH_MAIN(nqueens_workload)
