#ifndef TINE_ALGORITHMS_DETAIL_INPUT_HPP
#define TINE_ALGORITHMS_DETAIL_INPUT_HPP

/// \file input.hpp
/// What the algorithms accept as their input range, and how each kind is turned into the one
/// shape they are written for: a standard random-access range with an O(1) size.
///
/// | input                                             | strategy                               |
/// |---------------------------------------------------|----------------------------------------|
/// | standard random-access sized range                | used as it is                          |
/// | standard random-access range, size unknown        | counted once (O(n) steps, no memory)   |
///   (range-v3's `enumerate`, `take_while`...)
/// | standard forward or bidirectional range           | iterators gathered once into a heap    |
///   (`std::list`, `std::set`, `std::map`, filter views) | vector of n + 1 (the only allocation) |
/// | random-access range that the standard concepts    | indexed through its own iterators      |
///   refuse (range-v3's `iota` over `long`)
/// | input-only range (an istream view, a generator)   | refused at compile time: it can be     |
///   |                                                   | read once only, not split              |
///
/// Positions an algorithm returns (find_if's iterator, min_element's...) are mapped back to the
/// caller's iterators; for a temporary range that owns its elements they are
/// `std::ranges::dangling`, as in std::ranges.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <cstddef>
#include <iterator>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>
#include <vector>

#include <tine/algorithms/detail/indexed_view.hpp>

namespace tine::detail {

/// A range that is random access by its own iterators' operations though the standard concepts
/// refuse it (range-v3's `iota(0L, n)`, whose difference type is a class of its own).
template <typename R>
concept index_bridgeable = requires(R& r, std::ptrdiff_t k) {
  r.begin();
  r.end();
  static_cast<std::ptrdiff_t>(r.end() - r.begin());
  *(r.begin() + k);
};

enum class input_kind { direct, counted, gathered, bridged, input_only, not_a_range };

template <typename R>
consteval input_kind input_kind_of() {
  using T = std::remove_reference_t<R>;
  if constexpr (std::ranges::random_access_range<T> && std::ranges::sized_range<T>) {
    return input_kind::direct;
  } else if constexpr (std::ranges::random_access_range<T>) {
    return input_kind::counted;
  } else if constexpr (std::ranges::forward_range<T>) {
    return input_kind::gathered;
  } else if constexpr (std::ranges::input_range<T>) {
    return input_kind::input_only;
  } else if constexpr (index_bridgeable<T>) {
    return input_kind::bridged;
  } else {
    return input_kind::not_a_range;
  }
}

/// The compile-time verdict on an input, with a sentence when it is refused.
template <typename R>
consteval bool check_input_range() {
  constexpr input_kind kind = input_kind_of<R>();
  static_assert(kind != input_kind::input_only,
                "tine algorithms visit their input in parallel, so they need a range that can be "
                "traversed more than once (a forward range); this is an input-only range (an "
                "istream view, a generator): copy it into a std::vector first");
  static_assert(kind != input_kind::not_a_range,
                "tine algorithms take a range (a container, a span, a view) or an iterator pair; "
                "this argument is neither");
  return kind != input_kind::input_only && kind != input_kind::not_a_range;
}

/// An input the algorithms use as it is: a standard random-access sized range they refer to.
template <typename R>
concept direct_input = input_kind_of<R>() == input_kind::direct;

/// The size of a prepared range, in the algorithms' index type.
template <typename R>
std::size_t range_size(R& r) {
  return static_cast<std::size_t>(std::ranges::size(r));
}

/// Element `i` of a bridged range.
template <typename It>
struct bridge_at {
  It first;
  decltype(auto) operator()(std::size_t i) const {
    return *(first + static_cast<std::ptrdiff_t>(i));
  }
};

/// Element `i` of a gathered range.
template <typename It>
struct gather_at {
  const It* positions;
  decltype(auto) operator()(std::size_t i) const { return *positions[i]; }
};

/// An input prepared for the algorithms: `view()` is the random-access sized range they run on,
/// `position(it)` maps one of its iterators back to an iterator of the input. It refers to the
/// range, which must outlive it.
template <typename R, input_kind Kind = input_kind_of<R>()>
class prepared_input;

template <typename R>
class prepared_input<R, input_kind::direct> {
 public:
  explicit prepared_input(R& r) noexcept : m_range(r) {}
  R& view() noexcept { return m_range; }
  template <typename It>
  It position(It it) const noexcept {
    return it;
  }

 private:
  R& m_range;
};

template <typename R>
class prepared_input<R, input_kind::counted> {
  using iterator = std::ranges::iterator_t<R>;

 public:
  explicit prepared_input(R& r) : m_first(std::ranges::begin(r)) {
    iterator last = m_first;
    std::ranges::advance(last, std::ranges::end(r));
    m_view = {m_first, last};
  }
  std::ranges::subrange<iterator>& view() noexcept { return m_view; }
  iterator position(iterator it) const noexcept { return it; }

 private:
  iterator m_first;
  std::ranges::subrange<iterator> m_view;
};

template <typename R>
class prepared_input<R, input_kind::gathered> {
  using iterator = std::ranges::iterator_t<R>;
  using at_type = gather_at<iterator>;

 public:
  /// Throws std::bad_alloc: n + 1 iterators on the heap (the last is the end).
  explicit prepared_input(R& r) {
    if constexpr (std::ranges::sized_range<R>) {
      m_positions.reserve(static_cast<std::size_t>(std::ranges::size(r)) + 1);
    }
    iterator it = std::ranges::begin(r);
    for (const auto last = std::ranges::end(r); it != last; ++it) {
      m_positions.push_back(it);
    }
    m_positions.push_back(it);
    m_at = at_type{m_positions.data()};
    m_view.emplace(&m_at, m_positions.size() - 1);
  }
  prepared_input(const prepared_input&) = delete;
  prepared_input& operator=(const prepared_input&) = delete;

  indexed_view<at_type>& view() noexcept { return *m_view; }
  iterator position(indexed_iterator<at_type> it) const noexcept {
    return m_positions[static_cast<std::size_t>(it.index())];
  }

 private:
  std::vector<iterator> m_positions;
  at_type m_at{};
  std::optional<indexed_view<at_type>> m_view;
};

template <typename R>
class prepared_input<R, input_kind::bridged> {
  using iterator = decltype(std::declval<R&>().begin());
  using at_type = bridge_at<iterator>;

 public:
  explicit prepared_input(R& r)
      : m_at{r.begin()},
        m_view(&m_at, static_cast<std::size_t>(static_cast<std::ptrdiff_t>(r.end() - r.begin()))) {}
  prepared_input(const prepared_input&) = delete;
  prepared_input& operator=(const prepared_input&) = delete;

  indexed_view<at_type>& view() noexcept { return m_view; }
  iterator position(indexed_iterator<at_type> it) const { return m_at.first + it.index(); }

 private:
  at_type m_at;
  indexed_view<at_type> m_view;
};

}  // namespace tine::detail

#endif  // TINE_ALGORITHMS_DETAIL_INPUT_HPP
