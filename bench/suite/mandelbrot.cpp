/// mandelbrot: escape-time iterations of an n x n image of the Mandelbrot set over
/// [-2, 0.5] x [-1.25, 1.25], at most 1000 iterations per pixel. The rows are split in halves down
/// to 4 rows; the work per row is very uneven (rows through the set take 1000 iterations a pixel,
/// rows far from it a few), which is what the program measures. The result is the image's
/// iteration counts, which must equal the serial ones exactly. One task = one row range.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/harness.hpp"

namespace {

constexpr int max_iterations = 1000;
constexpr int grain = 4;  // rows per leaf

int escape(double cr, double ci) {
  double zr = 0;
  double zi = 0;
  int k = 0;
  while (k < max_iterations && zr * zr + zi * zi <= 4.0) {
    const double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    ++k;
  }
  return k;
}

void rows(std::uint16_t* image, int n, int lo, int hi) {
  for (int y = lo; y < hi; ++y) {
    const double ci = -1.25 + 2.5 * y / n;
    for (int x = 0; x < n; ++x) {
      image[std::size_t(y) * n + x] = std::uint16_t(escape(-2.0 + 2.5 * x / n, ci));
    }
  }
}

tine::task<void> rows_tine(std::uint16_t* image, int n, int lo, int hi) {
  if (hi - lo <= grain) {
    rows(image, n, lo, hi);
    co_return;
  }
  const int mid = lo + (hi - lo) / 2;
  co_await tine::fork(rows_tine, image, n, lo, mid);
  co_await tine::call(rows_tine, image, n, mid, hi);
  co_await tine::join();
}

void rows_tbb(std::uint16_t* image, int n, int lo, int hi) {
  if (hi - lo <= grain) {
    rows(image, n, lo, hi);
    return;
  }
  const int mid = lo + (hi - lo) / 2;
  tbb::task_group g;
  g.run([=] { rows_tbb(image, n, lo, mid); });
  rows_tbb(image, n, mid, hi);
  g.wait();
}

void rows_omp(std::uint16_t* image, int n, int lo, int hi) {
  if (hi - lo <= grain) {
    rows(image, n, lo, hi);
    return;
  }
  const int mid = lo + (hi - lo) / 2;
#pragma omp task default(none) firstprivate(image, n, lo, mid)
  rows_omp(image, n, lo, mid);
  rows_omp(image, n, mid, hi);
#pragma omp taskwait
}

std::uint64_t row_tasks(int lo, int hi) {
  return hi - lo <= grain
             ? 1
             : 1 + row_tasks(lo, lo + (hi - lo) / 2) + row_tasks(lo + (hi - lo) / 2, hi);
}

template <typename Fill>
std::vector<std::uint16_t> image_of(int n, Fill&& fill) {
  std::vector<std::uint16_t> image(std::size_t(n) * n);
  fill(image.data(), n);
  return image;
}

struct mandelbrot_workload {
  static constexpr const char* name = "mandelbrot";
  // Its check compares with the serial result: --plain makes one first (harness.hpp).
  static constexpr bool plain_checks_against_serial = true;
  using input = int;  // n: an n x n image
  using result = std::vector<std::uint16_t>;

  static input parse(std::string_view s) { return std::stoi(std::string(s)); }
  static std::string show(input n) { return std::to_string(n); }
  static std::vector<input> bench_inputs() { return {1024}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 64; }

  static result serial(input n) {
    return image_of(n, [](std::uint16_t* image, int size) { rows(image, size, 0, size); });
  }
  template <class S>
  static result tine(S& s, input n) {
    return image_of(n, [&s](std::uint16_t* image, int size) {
      tine::sync_wait(s, rows_tine, image, size, 0, size);
    });
  }
  static result tbb(input n) {
    return image_of(n, [](std::uint16_t* image, int size) { rows_tbb(image, size, 0, size); });
  }
  static result omp(input n) {
    return image_of(n, [](std::uint16_t* image, int size) { rows_omp(image, size, 0, size); });
  }

  static std::uint64_t tasks(input n) { return row_tasks(0, n); }
  static std::string check(input, const result& got, const result& ref) {
    if (got != ref) {
      return "the image's iteration counts differ from the serial ones";
    }
    // The image must show the set: -0.25 + 0i, inside the main cardioid, never escapes; the
    // corner -2 - 1.25i at once.
    const std::size_t n = static_cast<std::size_t>(std::sqrt(double(ref.size())) + 0.5);
    if (ref[(n / 2) * n + 7 * n / 10] != max_iterations || ref[0] > 2) {
      return "the serial image does not look like the Mandelbrot set";
    }
    return "";
  }
};

}  // namespace

TINE_BENCH_MAIN(mandelbrot_workload)
