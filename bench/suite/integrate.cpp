/// integrate: adaptive trapezoid quadrature of f(x) = x^3 + x over [0, n] to tolerance eps, as in
/// the libfork paper (there n = 10^4, eps = 10^-9; this machine uses smaller n). An interval is
/// halved until the two halves' trapezoids agree with the whole to eps. One task = one interval.

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "bench/suite/harness.hpp"

namespace {

constexpr double eps = 1e-9;

double f(double x) { return (x * x + 1.0) * x; }
double exact_integral(double a, double b) {
  auto F = [](double x) { return x * x * x * x / 4.0 + x * x / 2.0; };
  return F(b) - F(a);
}

double integrate_serial(double x1, double y1, double x2, double y2, double area) {
  double half = (x2 - x1) / 2;
  double x0 = x1 + half;
  double y0 = f(x0);
  double left = (y1 + y0) / 2 * half;
  double right = (y0 + y2) / 2 * half;
  if (std::abs(left + right - area) < eps) {
    return left + right;
  }
  return integrate_serial(x1, y1, x0, y0, left) + integrate_serial(x0, y0, x2, y2, right);
}

std::uint64_t count_serial(double x1, double y1, double x2, double y2, double area) {
  double half = (x2 - x1) / 2;
  double x0 = x1 + half;
  double y0 = f(x0);
  double left = (y1 + y0) / 2 * half;
  double right = (y0 + y2) / 2 * half;
  if (std::abs(left + right - area) < eps) {
    return 1;
  }
  return 1 + count_serial(x1, y1, x0, y0, left) + count_serial(x0, y0, x2, y2, right);
}

tine::task<double> integrate_tine(double x1, double y1, double x2, double y2, double area) {
  double half = (x2 - x1) / 2;
  double x0 = x1 + half;
  double y0 = f(x0);
  double left = (y1 + y0) / 2 * half;
  double right = (y0 + y2) / 2 * half;
  if (std::abs(left + right - area) < eps) {
    co_return left + right;
  }
  double a = 0;
  double b = 0;
  co_await tine::fork(&a, integrate_tine, x1, y1, x0, y0, left);
  co_await tine::call(&b, integrate_tine, x0, y0, x2, y2, right);
  co_await tine::join();
  co_return a + b;
}

double integrate_tbb(double x1, double y1, double x2, double y2, double area) {
  double half = (x2 - x1) / 2;
  double x0 = x1 + half;
  double y0 = f(x0);
  double left = (y1 + y0) / 2 * half;
  double right = (y0 + y2) / 2 * half;
  if (std::abs(left + right - area) < eps) {
    return left + right;
  }
  double a = 0;
  tbb::task_group g;
  g.run([&] { a = integrate_tbb(x1, y1, x0, y0, left); });
  double b = integrate_tbb(x0, y0, x2, y2, right);
  g.wait();
  return a + b;
}

double integrate_omp(double x1, double y1, double x2, double y2, double area) {
  double half = (x2 - x1) / 2;
  double x0 = x1 + half;
  double y0 = f(x0);
  double left = (y1 + y0) / 2 * half;
  double right = (y0 + y2) / 2 * half;
  if (std::abs(left + right - area) < eps) {
    return left + right;
  }
  double a = 0;
#pragma omp task default(none) shared(a) firstprivate(x1, y1, x0, y0, left)
  a = integrate_omp(x1, y1, x0, y0, left);
  double b = integrate_omp(x0, y0, x2, y2, right);
#pragma omp taskwait
  return a + b;
}

struct integrate_workload {
  static constexpr const char* name = "integrate";
  using input = int;  // n: the interval is [0, n]
  using result = double;

  static input parse(std::string_view s) { return std::stoi(std::string(s)); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {1000}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 10; }

  static result serial(input n) { return integrate_serial(0, f(0), n, f(n), 0); }
  template <class S>
  static result tine(S& s, input n) {
    return tine::sync_wait(s, integrate_tine, 0.0, f(0), double(n), f(n), 0.0);
  }
  static result tbb(input n) { return integrate_tbb(0, f(0), n, f(n), 0); }
  static result omp(input n) { return integrate_omp(0, f(0), n, f(n), 0); }

  static std::uint64_t tasks(input n) { return count_serial(0, f(0), n, f(n), 0); }
  static std::string check(input n, result got, result ref) {
    double want = exact_integral(0, n);
    // The same additions in a different order: equal up to rounding; and close to the exact value.
    if (std::abs(got - ref) > 1e-9 * std::abs(ref) ||
        std::abs(got - want) > 1e-6 * std::abs(want)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "wrong integral %.17g (serial %.17g, exact %.17g)", got, ref,
                    want);
      return buf;
    }
    return "";
  }
};

}  // namespace

TINE_BENCH_MAIN(integrate_workload)
