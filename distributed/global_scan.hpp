#ifndef TINE_DISTRIBUTED_GLOBAL_SCAN_HPP
#define TINE_DISTRIBUTED_GLOBAL_SCAN_HPP

/// \file global_scan.hpp
/// `tine::inclusive_scan` and `tine::exclusive_scan` over global spans (the other algorithms are
/// in global_algorithms.hpp), with the arguments of their form over ranges, an output span (or
/// vector) in place of the output iterator, and no result:
///
/// ```
/// tine::inclusive_scan(pool, in, out);                        // out[i] = in[0] + ... + in[i]
/// tine::exclusive_scan(pool, in, out, 0L, std::plus<>{});    // out[i] = 0 + ... + in[i-1]
/// ```
///
/// `op` is associative (not necessarily commutative): the results equal
/// `std::inclusive_scan`'s / `std::exclusive_scan`'s. The output may be the input (in place). The
/// accumulator is trivially copyable and default-constructible. Each element is read three times
/// and written once (memory/global_scan_defs.hpp says how and why).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include <tine/algorithms/grain.hpp>
#include <tine/algorithms/scan.hpp>
#include <tine/distributed/global_algorithms.hpp>
#include <tine/distributed/memory/global_scan_defs.hpp>

namespace tine::mpi {

// The entry points, found by argument-dependent lookup from tine's algorithm objects
// (algorithms/detail/entry.hpp).

template <typename In, typename Out, typename Op = std::plus<>>
  requires(detail::global_input<In> && detail::global_input<Out> && !std::same_as<Op, grain>)
auto tine_algorithm(tine::detail::inclusive_scan_impl, const In& input, const Out& output,
                    Op op = {}, grain g = {}) {
  using Acc = std::remove_const_t<typename detail::span_for<In>::element_type>;
  return detail::start_scan<true, Acc>(input, output, std::nullopt, std::move(op), g);
}

template <typename In, typename Out, typename Op, typename Acc>
  requires(detail::global_input<In> && detail::global_input<Out> && !std::same_as<Acc, grain>)
auto tine_algorithm(tine::detail::inclusive_scan_impl, const In& input, const Out& output, Op op,
                    Acc init, grain g = {}) {
  return detail::start_scan<true, Acc>(input, output, std::optional<Acc>(std::move(init)),
                                       std::move(op), g);
}

template <typename In, typename Out, typename Acc, typename Op = std::plus<>>
  requires(detail::global_input<In> && detail::global_input<Out> && !std::same_as<Op, grain>)
auto tine_algorithm(tine::detail::exclusive_scan_impl, const In& input, const Out& output, Acc init,
                    Op op = {}, grain g = {}) {
  return detail::start_scan<false, Acc>(input, output, std::optional<Acc>(std::move(init)),
                                        std::move(op), g);
}

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_GLOBAL_SCAN_HPP
