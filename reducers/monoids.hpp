#ifndef TINE_REDUCERS_MONOIDS_HPP
#define TINE_REDUCERS_MONOIDS_HPP

/// \file monoids.hpp
/// Ready-made monoids for `tine::reducer` (reducer.hpp): `sum<T>`, `product<T>`, `min<T>`,
/// `max<T>` and `append<Container>`. Each is a type with `value_type`, `identity()` and
/// `reduce(left, right)` (left := left ⊕ right); write your own the same way.
///
/// ```
/// tine::reducer<tine::sum<long>> total;                 // total.view() += x;
/// tine::reducer<tine::max<double>> highest;             //
/// tine::max<double>::update(highest.view(), x); tine::reducer<tine::append<std::string>> text; //
/// text.view() += "word"; tine::reducer<tine::append<std::list<int>>> order;    //
/// order.view().push_back(i);
/// ```

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <iterator>
#include <limits>
#include <type_traits>
#include <utility>

namespace tine {

/// `left + right`, identity `T()`: for arithmetic types and any T whose value-initialised object
/// is its additive identity (`+=` is the operation).
template <typename T>
struct sum {
  using value_type = T;
  static T identity() { return T(); }
  static void reduce(T& left, T& right) { left += right; }
};

/// `left * right`, identity `T(1)` (`*=` is the operation; for matrices, write a monoid of your
/// own: their product is not commutative, and `reduce` must keep left before right).
template <typename T>
struct product {
  using value_type = T;
  static T identity() { return T(1); }
  static void reduce(T& left, T& right) { left *= right; }
};

/// The least value, identity the largest `T` (+infinity for floating point). Ties keep the
/// earlier value in serial order. `min<T>::update(view, x)` folds one value in.
template <typename T>
struct min {
  static_assert(std::numeric_limits<T>::is_specialized,
                "tine::min<T> / tine::max<T>: T needs std::numeric_limits (its identity is the "
                "largest or lowest T); for other types write a monoid over std::optional<T>");
  using value_type = T;
  static T identity() {
    if constexpr (!std::numeric_limits<T>::is_specialized) {
      return T();  // rejected above; keeps the message alone
    } else if constexpr (std::numeric_limits<T>::has_infinity) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  static void reduce(T& left, T& right) {
    if (right < left) {
      left = right;
    }
  }
  static void update(T& view, const T& x) {
    if (x < view) {
      view = x;
    }
  }
};

/// The greatest value, identity the lowest `T` (-infinity for floating point). Ties keep the
/// earlier value in serial order. `max<T>::update(view, x)` folds one value in.
template <typename T>
struct max {
  static_assert(std::numeric_limits<T>::is_specialized,
                "tine::min<T> / tine::max<T>: T needs std::numeric_limits (its identity is the "
                "largest or lowest T); for other types write a monoid over std::optional<T>");
  using value_type = T;
  static T identity() {
    if constexpr (!std::numeric_limits<T>::is_specialized) {
      return T();  // rejected above; keeps the message alone
    } else if constexpr (std::numeric_limits<T>::has_infinity) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  static void reduce(T& left, T& right) {
    if (left < right) {
      left = right;
    }
  }
  static void update(T& view, const T& x) {
    if (view < x) {
      view = x;
    }
  }
};

/// Concatenation: `left` followed by `right`, identity the empty container. Lists are spliced
/// (constant time); other containers (std::string, std::vector, std::deque, ...) have the right
/// one's elements moved to the end of the left one.
namespace detail {

template <typename C>
concept sequence_container = requires(C& c) {
  c.insert(c.end(), std::make_move_iterator(c.begin()), std::make_move_iterator(c.end()));
};

}  // namespace detail

template <typename Container>
struct append {
  static_assert(detail::sequence_container<Container>,
                "tine::append<Container>: Container must be a sequence container (with "
                "insert(end, first, last)), such as std::string, std::vector or std::list");
  using value_type = Container;
  static Container identity() { return Container(); }
  static void reduce(Container& left, Container& right) {
    if constexpr (requires { left.splice(left.end(), right); }) {
      left.splice(left.end(), right);
    } else if constexpr (detail::sequence_container<Container>) {
      left.insert(left.end(), std::make_move_iterator(right.begin()),
                  std::make_move_iterator(right.end()));
    }
  }
};

}  // namespace tine

#endif  // TINE_REDUCERS_MONOIDS_HPP
