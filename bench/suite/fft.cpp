/// fft: a radix-2 Cooley-Tukey FFT of 2^k complex points, out of place (the Cilk-5 suite's fft
/// is a mixed-radix one; this is its shape: transform the even and the odd halves in parallel,
/// then combine them with the twiddle factors in parallel chunks). Below a grain both recursions
/// run serially. Every output is computed by the same arithmetic whatever the schedule, so the
/// result must equal the serial one bit for bit; the serial transform is itself checked against
/// the direct sum at a few frequencies. One task = one transform or combine range.

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench/suite/harness.hpp"

namespace {

using cplx = std::complex<double>;

constexpr std::size_t grain = 2048;  // points below which a transform or combine runs serially

/// The input signal and the twiddle factors of the largest transform: w[k] = e^{-2 pi i k / n}.
struct plan {
  std::size_t n;
  std::vector<cplx> in;
  std::vector<cplx> w;

  explicit plan(std::size_t points) : n(points), in(points), w(points / 2) {
    std::uint64_t s = 88172645463325252ULL;
    for (cplx& x : in) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      x = cplx(double(s % 2001) / 1000.0 - 1.0, double((s >> 20) % 2001) / 1000.0 - 1.0);
    }
    const double pi = std::acos(-1.0);
    for (std::size_t k = 0; k < w.size(); ++k) {
      w[k] = std::polar(1.0, -2.0 * pi * double(k) / double(n));
    }
  }
};

/// out[k] and out[k + m] from the halves' transforms, for k in [lo, hi); `step` maps the k of a
/// transform of 2m points onto the largest transform's twiddles.
void combine(cplx* out, std::size_t m, std::size_t lo, std::size_t hi, const cplx* w,
             std::size_t step) {
  for (std::size_t k = lo; k < hi; ++k) {
    const cplx t = w[k * step] * out[k + m];
    out[k + m] = out[k] - t;
    out[k] += t;
  }
}

/// The transform of the n points in[0], in[stride], ... into out[0..n).
void fft_serial(const cplx* in, cplx* out, std::size_t n, std::size_t stride, const cplx* w,
                std::size_t total) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const std::size_t m = n / 2;
  fft_serial(in, out, m, 2 * stride, w, total);
  fft_serial(in + stride, out + m, m, 2 * stride, w, total);
  combine(out, m, 0, m, w, total / n);
}

tine::task<void> combine_tine(cplx* out, std::size_t m, std::size_t lo, std::size_t hi,
                              const cplx* w, std::size_t step) {
  if (hi - lo <= grain) {
    combine(out, m, lo, hi, w, step);
    co_return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  co_await tine::fork(combine_tine, out, m, lo, mid, w, step);
  co_await tine::call(combine_tine, out, m, mid, hi, w, step);
  co_await tine::join();
}

tine::task<void> fft_tine(const cplx* in, cplx* out, std::size_t n, std::size_t stride,
                          const cplx* w, std::size_t total) {
  if (n <= grain) {
    fft_serial(in, out, n, stride, w, total);
    co_return;
  }
  const std::size_t m = n / 2;
  co_await tine::fork(fft_tine, in, out, m, 2 * stride, w, total);
  co_await tine::call(fft_tine, in + stride, out + m, m, 2 * stride, w, total);
  co_await tine::join();
  co_await tine::call(combine_tine, out, m, std::size_t{0}, m, w, total / n);
}

void combine_tbb(cplx* out, std::size_t m, std::size_t lo, std::size_t hi, const cplx* w,
                 std::size_t step) {
  if (hi - lo <= grain) {
    combine(out, m, lo, hi, w, step);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  tbb::task_group g;
  g.run([=] { combine_tbb(out, m, lo, mid, w, step); });
  combine_tbb(out, m, mid, hi, w, step);
  g.wait();
}

void fft_tbb(const cplx* in, cplx* out, std::size_t n, std::size_t stride, const cplx* w,
             std::size_t total) {
  if (n <= grain) {
    fft_serial(in, out, n, stride, w, total);
    return;
  }
  const std::size_t m = n / 2;
  tbb::task_group g;
  g.run([=] { fft_tbb(in, out, m, 2 * stride, w, total); });
  fft_tbb(in + stride, out + m, m, 2 * stride, w, total);
  g.wait();
  combine_tbb(out, m, 0, m, w, total / n);
}

void combine_omp(cplx* out, std::size_t m, std::size_t lo, std::size_t hi, const cplx* w,
                 std::size_t step) {
  if (hi - lo <= grain) {
    combine(out, m, lo, hi, w, step);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
#pragma omp task default(none) firstprivate(out, m, lo, mid, w, step)
  combine_omp(out, m, lo, mid, w, step);
  combine_omp(out, m, mid, hi, w, step);
#pragma omp taskwait
}

void fft_omp(const cplx* in, cplx* out, std::size_t n, std::size_t stride, const cplx* w,
             std::size_t total) {
  if (n <= grain) {
    fft_serial(in, out, n, stride, w, total);
    return;
  }
  const std::size_t m = n / 2;
#pragma omp task default(none) firstprivate(in, out, m, stride, w, total)
  fft_omp(in, out, m, 2 * stride, w, total);
  fft_omp(in + stride, out + m, m, 2 * stride, w, total);
#pragma omp taskwait
  combine_omp(out, m, 0, m, w, total / n);
}

std::uint64_t range_tasks(std::size_t n) {
  return n <= grain ? 1 : 1 + range_tasks(n / 2) + range_tasks(n - n / 2);
}

std::uint64_t fft_tasks(std::size_t n) {
  return n <= grain ? 1 : 1 + 2 * fft_tasks(n / 2) + range_tasks(n / 2);
}

const plan& plan_for(int log2n) {
  static std::vector<std::pair<int, plan>> made;
  for (auto& [k, p] : made) {
    if (k == log2n) {
      return p;
    }
  }
  made.emplace_back(log2n, plan(std::size_t{1} << log2n));
  return made.back().second;
}

struct fft_result {
  std::vector<cplx> out;
};

template <typename Run>
fft_result transform(int log2n, Run&& run) {
  const plan& p = plan_for(log2n);
  fft_result r;
  r.out.resize(p.n);
  run(p, r.out.data());
  return r;
}

/// A transform against the direct sum at a few frequencies: "" if it agrees.
std::string serial_verdict(int k, const fft_result& ref) {
  const plan& p = plan_for(k);
  const double pi = std::acos(-1.0);
  std::string verdict;
  for (std::size_t f : {std::size_t{0}, std::size_t{1}, p.n / 3, p.n - 1}) {
    cplx direct = 0;
    for (std::size_t t = 0; t < p.n; ++t) {
      direct += p.in[t] * std::polar(1.0, -2.0 * pi * double((f * t) % p.n) / double(p.n));
    }
    if (std::abs(direct - ref.out[f]) > 1e-9 * double(p.n)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "frequency %zu: fft %.9g%+.9gi, direct sum %.9g%+.9gi", f,
                    ref.out[f].real(), ref.out[f].imag(), direct.real(), direct.imag());
      verdict = buf;
      break;
    }
  }
  return verdict;
}

/// serial_verdict of the serial transform, once per size (the sum costs as much as many
/// transforms).
const std::string& serial_checked(int k, const fft_result& ref) {
  static std::vector<std::pair<int, std::string>> verdicts;
  for (auto& [size, verdict] : verdicts) {
    if (size == k) {
      return verdict;
    }
  }
  verdicts.emplace_back(k, serial_verdict(k, ref));
  return verdicts.back().second;
}

struct fft_workload {
  static constexpr const char* name = "fft";
  using input = int;  // log2 of the number of points
  using result = fft_result;

  static input parse(std::string_view s) { return std::stoi(std::string(s)); }
  static std::string show(input k) { return std::to_string(k); }
  static std::vector<input> bench_inputs() { return {22}; }
  static std::vector<input> full_inputs() { return {}; }
  static input smoke_input() { return 14; }

  static result serial(input k) {
    return transform(
        k, [](const plan& p, cplx* out) { fft_serial(p.in.data(), out, p.n, 1, p.w.data(), p.n); });
  }
  template <class S>
  static result tine(S& s, input k) {
    return transform(k, [&s](const plan& p, cplx* out) {
      tine::sync_wait(s, fft_tine, p.in.data(), out, p.n, std::size_t{1}, p.w.data(), p.n);
    });
  }
  static result tbb(input k) {
    return transform(
        k, [](const plan& p, cplx* out) { fft_tbb(p.in.data(), out, p.n, 1, p.w.data(), p.n); });
  }
  static result omp(input k) {
    return transform(
        k, [](const plan& p, cplx* out) { fft_omp(p.in.data(), out, p.n, 1, p.w.data(), p.n); });
  }

  static std::uint64_t tasks(input k) { return fft_tasks(std::size_t{1} << k); }
  static std::string check(input k, const result& got, const result& ref) {
    if (got.out.size() != ref.out.size() ||
        std::memcmp(got.out.data(), ref.out.data(), got.out.size() * sizeof(cplx)) != 0) {
      return "the transform differs from the serial one";
    }
    // Against itself (harness.hpp's --plain) the direct sums are computed again every time: the
    // verdict kept is about one run's result.
    return &got == &ref ? serial_verdict(k, ref) : serial_checked(k, ref);
  }
};

}  // namespace

TINE_BENCH_MAIN(fft_workload)
