#ifndef TINE_REDUCERS_DPRNG_HPP
#define TINE_REDUCERS_DPRNG_HPP

/// \file dprng.hpp
/// `tine::dprng`: deterministic parallel random numbers. Every stream depends only on the seed,
/// on the place in the fork tree of the task that asked for it (its pedigree, pedigree.hpp) and
/// on how many streams that task asked for before; never on workers, steals or timing. So a
/// randomised computation draws the same bits on one worker or many, on every scheduler, in
/// every run.
///
/// ```
/// tine::task<long> hits(long n) {
///   tine::dprng rng = co_await tine::dprng::current();   // this task's next stream
///   long in = 0;
///   for (long i = 0; i < n; ++i) {
///     const double x = rng.uniform(), y = rng.uniform();
///     in += x * x + y * y < 1.0;
///   }
///   co_return in;
/// }
/// long in = tine::sync_wait(pool, tine::dprng::seeded(42, hits), 1'000'000);
/// ```
///
/// In a parallel algorithm's task body, the place is the algorithm call's and the element's index:
/// the algorithm's splits and leaves are left out, so a body draws the same numbers whatever the
/// grain and the worker count (docs/reducers.md, "In the parallel algorithms").
///
/// A stream is a small value (16 bytes), a UniformRandomBitGenerator of 64-bit words: keep it in
/// a local, pass it by reference, draw from it across co_awaits. Each `co_await current()` takes
/// the next rank of the calling task, so two streams of one task never repeat each other.
///
/// The generator is SplitMix64 ("Fast splittable pseudorandom number generators", Steele, Lea
/// and Flood): the k-th number of a stream is mix64(s + k·γ), with the start s the key of the
/// stream's pedigree and the odd increment γ derived from it as SplitMix64 derives a split
/// stream's. Statistical tests: tests/reducers/dprng_statistics_test.cpp; costs:
/// bench/journal/2026-11-26-reducers-dprng.md.
///
/// Refused (std::logic_error from `current()`): a task with no `dprng::seeded` task above it,
/// and a worker whose frames may move to another process (tine::mpi_pool on more than one rank),
/// where a stolen task's ancestors are not in the thief's memory.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <bit>
#include <coroutine>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <tine/core/callable_check.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/request.hpp>
#include <tine/core/task.hpp>
#include <tine/reducers/pedigree.hpp>

namespace tine {

class dprng;

namespace detail {

struct dprng_current_request;
template <typename F>
struct dprng_seeded_fn;

}  // namespace detail

/// One deterministic stream of 64-bit words; see the file comment.
class dprng {
 public:
  using result_type = std::uint64_t;

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }

  /// The next number of the stream.
  result_type operator()() noexcept {
    const result_type out = detail::pedigree::mix64(m_state);
    m_state += m_gamma;
    return out;
  }

  /// The next number as a double uniform in [0, 1), from its 53 high bits (the same on every
  /// platform, unlike std::uniform_real_distribution's).
  double uniform() noexcept { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

  /// Skips `n` numbers in constant time.
  void discard(unsigned long long n) noexcept { m_state += n * m_gamma; }

  /// Two streams are equal when they will draw the same numbers.
  friend bool operator==(const dprng&, const dprng&) = default;

  /// `co_await tine::dprng::current()`, in a task: a new stream for the calling task, the next
  /// of its streams. Throws std::logic_error when no `seeded` task is above the caller, or on a
  /// worker whose frames may leave the process.
  [[nodiscard(
      "tine::dprng::current does nothing unless co_awaited: write "
      "tine::dprng rng = co_await tine::dprng::current();")]] static detail::dprng_current_request
  current() noexcept;

  /// A callable like `fn` that runs `fn(args...)` as the root of a seeded computation: the tasks
  /// below it draw from streams of `seed` and their pedigree. Use it with sync_wait, or call it
  /// from a task (a named object: `auto g = tine::dprng::seeded(7, f); co_await tine::call(g)`).
  template <typename F>
  static detail::dprng_seeded_fn<std::decay_t<F>> seeded(std::uint64_t seed, F&& fn);

  /// The stream whose start is the 64-bit `key`: for code that derives its own keys (a loop body
  /// keyed by its index, say). Streams from current() are of this kind, keyed by pedigree.
  static dprng from_key(std::uint64_t key) noexcept { return dprng(key); }

 private:
  explicit dprng(std::uint64_t key) noexcept : m_state(key), m_gamma(gamma_of(key)) {}

  /// SplitMix64's mixGamma: an odd increment, with enough 01 and 10 bit pairs that the sequence
  /// s + k·γ changes many bits at every step.
  static std::uint64_t gamma_of(std::uint64_t key) noexcept {
    std::uint64_t z = key + detail::pedigree::golden_gamma;
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ULL;
    z = (z ^ (z >> 33)) | 1;
    return std::popcount(z ^ (z >> 1)) < 24 ? z ^ 0xaaaaaaaaaaaaaaaaULL : z;
  }

  std::uint64_t m_state;
  std::uint64_t m_gamma;
};

namespace detail {

struct dprng_current_awaitable {
  frame* self;

  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  dprng await_resume() const {
    if (frames_may_leave_process()) {
      throw std::logic_error(
          "tine::dprng::current: this task runs where frames may move to another process "
          "(tine::mpi_pool on more than one rank), where a stolen task's ancestors are not in "
          "memory; tine::dprng is not supported there");
    }
    const std::uint32_t rank = pedigree::next_rank(self);
    return dprng::from_key(pedigree::combine(pedigree::key_of(self), rank));
  }
};

struct dprng_current_request {
  using tine_request = void;
  [[no_unique_address]] await_check check{};

  /// `tine::dprng rng = tine::dprng::current();`, the co_await forgotten: a message, not a
  /// conversion error.
  template <typename T>
  [[noreturn]] operator T() const {
    static_assert(std::is_same_v<T, void>,
                  "tine::dprng::current() must be co_awaited in a task: "
                  "tine::dprng rng = co_await tine::dprng::current();");
    std::abort();
  }

  dprng_current_awaitable bind(frame& f) && noexcept {
    check.awaited();
    return {&f};
  }
};

/// Makes the awaiting task the root of a seeded computation.
struct dprng_seed_request {
  using tine_request = void;
  std::uint64_t key;
  [[no_unique_address]] await_check check{};

  std::suspend_never bind(frame& f) && noexcept {
    check.awaited();
    pedigree::set_key(&f, key);
    return {};
  }
};

inline dprng_seed_request seed_here(std::uint64_t key) noexcept { return {key}; }

/// The seeded root: keys its own frame, then calls `fn` with the arguments as they were given
/// (held by reference: sync_wait's and call's arguments outlive it).
template <typename R, typename F, typename... Args>
task<R> dprng_seeded_task(std::uint64_t key, const F* fn, std::remove_reference_t<Args>&... args) {
  co_await seed_here(key);
  if constexpr (std::is_void_v<R>) {
    co_await tine::call(*fn, static_cast<Args&&>(args)...);
  } else {
    R result{};
    co_await tine::call(&result, *fn, static_cast<Args&&>(args)...);
    co_return std::move(result);
  }
}

template <typename F>
struct dprng_seeded_fn {
  std::uint64_t key;
  F fn;

  template <typename... Args>
    requires task_function<const F&, Args...>
  auto operator()(Args&&... args) const
      -> task<typename task_value<std::invoke_result_t<const F&, Args...>>::type> {
    using R = typename task_value<std::invoke_result_t<const F&, Args...>>::type;
    return dprng_seeded_task<R, F, Args...>(key, &fn, args...);
  }
};

}  // namespace detail

inline detail::dprng_current_request dprng::current() noexcept { return {}; }

template <typename F>
detail::dprng_seeded_fn<std::decay_t<F>> dprng::seeded(std::uint64_t seed, F&& fn) {
  return {detail::pedigree::seed_key(seed), std::forward<F>(fn)};
}

}  // namespace tine

#endif  // TINE_REDUCERS_DPRNG_HPP
