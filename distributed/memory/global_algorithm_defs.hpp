#ifndef TINE_DISTRIBUTED_MEMORY_GLOBAL_ALGORITHM_DEFS_HPP
#define TINE_DISTRIBUTED_MEMORY_GLOBAL_ALGORITHM_DEFS_HPP

/// \file global_algorithm_defs.hpp
/// Internal: each algorithm of global_algorithms.hpp as a definition run_on_global splits over
/// the input's blocks (global_split.hpp): its leaf over a checked-out piece, how two pieces'
/// results combine, and what the whole returns; with the checks the entry points make of their
/// arguments.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <tine/algorithms/algorithms.hpp>
#include <tine/algorithms/extension.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/core/task.hpp>
#include <tine/distributed/global_vector.hpp>
#include <tine/distributed/memory/global_split.hpp>

namespace tine::mpi {
namespace detail {

/// The span of a global input: a span as it is, a vector as its whole span.
template <typename T>
global_span<T> span_of(global_span<T> s) noexcept {
  return s;
}
template <typename T>
global_span<T> span_of(const global_vector<T>& v) noexcept {
  return v.span();
}

template <typename X>
using span_for = decltype(span_of(std::declval<const X&>()));

template <typename X>
concept global_input = requires(const X& x) { span_of(x); };

/// A value that crosses ranks inside a task (an accumulator, a fill value, a partial result).
template <typename X>
inline constexpr bool travels_as_bytes =
    std::is_trivially_copyable_v<X> && std::is_default_constructible_v<X>;

/// The algorithms call an element function on checked-out memory: a task (which could be
/// stolen to another rank mid-leaf) is refused.
template <typename F, typename... A>
inline constexpr bool plain_element_function =
    std::invocable<F&, A...> && !tine::detail::task_body<F&, A...>;

/// Throws std::invalid_argument when `out` has fewer elements than `in`.
inline void check_output(const char* name, std::uint64_t in, std::uint64_t out) {
  if (out < in) {
    throw std::invalid_argument(std::string("tine::") + name + " on global spans: the second " +
                                "span has " + std::to_string(out) + " elements, fewer than the " +
                                "first's " + std::to_string(in));
  }
}

/// The members every algorithm below shares: the input span `in`, whose blocks the cuts follow.
template <typename T>
struct over_span {
  global_span<T> in;
  std::uint64_t size() const noexcept { return in.size(); }
  std::uint64_t offset() const noexcept { return in.offset(); }
  std::uint32_t store_id() const noexcept { return in.store_id(); }
  void check() const noexcept {}
};

template <typename T, typename F>
struct for_each_algo : over_span<T> {
  using result = void;
  using output = void;
  F f;
  void leaf(std::uint64_t lo, std::uint64_t n) {
    auto mine = checkout_here(
        this->in.subspan(lo, n),
        std::conditional_t<std::is_const_v<T>, access::read_t, access::read_write_t>{});
    for (auto& x : mine) {
      std::invoke(f, x);
    }
  }
};

template <typename T, typename V>
struct fill_algo : over_span<T> {
  using result = void;
  using output = void;
  V value;
  void leaf(std::uint64_t lo, std::uint64_t n) {
    auto mine = checkout_here(this->in.subspan(lo, n), access::write);
    std::fill(mine.begin(), mine.end(), value);
  }
};

template <typename T, typename U, typename F>
struct map_algo : over_span<T> {
  using result = void;
  using output = void;
  global_span<U> out;
  F f;
  bool is_copy;  ///< names the algorithm in check's message
  void check() const { check_output(is_copy ? "copy" : "map", this->in.size(), out.size()); }
  void leaf(std::uint64_t lo, std::uint64_t n) {
    auto from = checkout_here(this->in.subspan(lo, n), access::read);
    auto to = checkout_here(out.subspan(lo, n), access::write);
    for (std::size_t i = 0; i < from.size(); ++i) {
      to[i] = std::invoke(f, from[i]);
    }
  }
};

/// fold_algo's second input when there is none.
struct no_second_input {};

/// reduce and transform_reduce over one input (`Second` void) or two.
template <typename Acc, typename T, typename Second, typename Op, typename Tr>
struct fold_algo : over_span<T> {
  using result = std::optional<Acc>;
  using output = Acc;
  std::conditional_t<std::is_void_v<Second>, no_second_input, global_span<Second>> second;
  Acc init;
  Op op;
  Tr transform;
  void check() const {
    if constexpr (!std::is_void_v<Second>) {
      check_output("transform_reduce", this->in.size(), second.size());
    }
  }
  result leaf(std::uint64_t lo, std::uint64_t n) {
    auto a = checkout_here(this->in.subspan(lo, n), access::read);
    if constexpr (std::is_void_v<Second>) {
      Acc acc(std::invoke(transform, a[0]));
      for (std::size_t i = 1; i < a.size(); ++i) {
        acc = std::invoke(op, std::move(acc), std::invoke(transform, a[i]));
      }
      return acc;
    } else {
      auto b = checkout_here(second.subspan(lo, n), access::read);
      Acc acc(std::invoke(transform, a[0], b[0]));
      for (std::size_t i = 1; i < a.size(); ++i) {
        acc = std::invoke(op, std::move(acc), std::invoke(transform, a[i], b[i]));
      }
      return acc;
    }
  }
  // Every result is a leaf's (always set) or a combination of them; an empty span calls finish().
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access)
  result combine(result l, result r) { return Acc(std::invoke(op, std::move(*l), std::move(*r))); }
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access)
  Acc finish(result all) { return Acc(std::invoke(op, std::move(init), std::move(*all))); }
  Acc finish() { return std::move(init); }
};

template <typename T, typename P>
struct count_algo : over_span<T> {
  using result = std::uint64_t;
  using output = std::uint64_t;
  P pred;
  result leaf(std::uint64_t lo, std::uint64_t n) {
    auto mine = checkout_here(this->in.subspan(lo, n), access::read);
    std::uint64_t k = 0;
    for (const auto& x : mine) {
      k += static_cast<bool>(std::invoke(pred, x)) ? 1 : 0;
    }
    return k;
  }
  result combine(result l, result r) const noexcept { return l + r; }
  output finish(result all) const noexcept { return all; }
  output finish() const noexcept { return 0; }
};

/// find_if: the first index where `pred` holds (none: all ones, the largest index).
template <typename T, typename P>
struct find_algo : over_span<T> {
  using result = std::uint64_t;
  using output = std::uint64_t;
  static constexpr std::uint64_t none = ~std::uint64_t{0};
  P pred;
  result leaf(std::uint64_t lo, std::uint64_t n) {
    auto mine = checkout_here(this->in.subspan(lo, n), access::read);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (static_cast<bool>(std::invoke(pred, mine[i]))) {
        return lo + i;
      }
    }
    return none;
  }
  result combine(result l, result r) const noexcept { return std::min(l, r); }
  output finish(result all) const noexcept { return all == none ? this->in.size() : all; }
  output finish() const noexcept { return 0; }
};

/// The index and value of the best element of a piece so far.
template <typename V>
struct indexed_value {
  std::uint64_t index = 0;
  V value;
};

/// min_element (`Max` false) and max_element: the first best element's index.
template <bool Max, typename T, typename Comp, typename Proj>
struct extremum_algo : over_span<T> {
  using V = std::remove_const_t<T>;
  using result = std::optional<indexed_value<V>>;
  using output = std::uint64_t;
  Comp comp;
  Proj proj;
  /// Whether `b`, later in the input, replaces the best so far `a`.
  bool better(const V& a, const V& b) {
    if constexpr (Max) {
      return std::invoke(comp, std::invoke(proj, a), std::invoke(proj, b));
    } else {
      return std::invoke(comp, std::invoke(proj, b), std::invoke(proj, a));
    }
  }
  result leaf(std::uint64_t lo, std::uint64_t n) {
    auto mine = checkout_here(this->in.subspan(lo, n), access::read);
    std::size_t best = 0;
    for (std::size_t i = 1; i < mine.size(); ++i) {
      if (better(mine[best], mine[i])) {
        best = i;
      }
    }
    return indexed_value<V>{lo + best, mine[best]};
  }
  result combine(result l, result r) { return better(l->value, r->value) ? r : l; }
  output finish(result all) const noexcept { return all->index; }
  output finish() const noexcept { return 0; }
};

/// Starts one algorithm over global spans (run_on_global); `F` and the other function objects
/// travel inside `Algo`.
template <typename Algo>
auto start(Algo algo, grain g) {
  return run_on_global<Algo>(std::move(algo), g);
}

}  // namespace detail
}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_MEMORY_GLOBAL_ALGORITHM_DEFS_HPP
