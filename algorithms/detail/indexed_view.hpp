#ifndef TINE_ALGORITHMS_DETAIL_INDEXED_VIEW_HPP
#define TINE_ALGORITHMS_DETAIL_INDEXED_VIEW_HPP

/// \file indexed_view.hpp
/// A standard random-access, sized view of `n` elements whose element `i` is `(*at)(i)`. The
/// algorithms see every input that is not already a standard random-access sized range through
/// one of these (input.hpp says which inputs and how), so the algorithms themselves are written
/// once, for standard random-access ranges.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <compare>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <type_traits>

namespace tine::detail {

/// Iterator of indexed_view: a position `i` and the accessor. The reference type is whatever
/// the accessor returns (a real reference for containers, so algorithms may write through it).
template <typename At>
class indexed_iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using reference = decltype(std::declval<const At&>()(std::size_t{}));
  using value_type = std::remove_cvref_t<reference>;
  using iterator_concept = std::random_access_iterator_tag;

  indexed_iterator() = default;
  indexed_iterator(const At* at, difference_type i) noexcept : m_at(at), m_i(i) {}

  reference operator*() const { return (*m_at)(static_cast<std::size_t>(m_i)); }
  reference operator[](difference_type k) const {
    return (*m_at)(static_cast<std::size_t>(m_i + k));
  }

  /// The position, for mapping a result back to the caller's input.
  difference_type index() const noexcept { return m_i; }

  indexed_iterator& operator++() noexcept { return ++m_i, *this; }
  indexed_iterator operator++(int) noexcept { return {m_at, m_i++}; }
  indexed_iterator& operator--() noexcept { return --m_i, *this; }
  indexed_iterator operator--(int) noexcept { return {m_at, m_i--}; }
  indexed_iterator& operator+=(difference_type k) noexcept { return m_i += k, *this; }
  indexed_iterator& operator-=(difference_type k) noexcept { return m_i -= k, *this; }
  friend indexed_iterator operator+(indexed_iterator it, difference_type k) noexcept {
    return it += k;
  }
  friend indexed_iterator operator+(difference_type k, indexed_iterator it) noexcept {
    return it += k;
  }
  friend indexed_iterator operator-(indexed_iterator it, difference_type k) noexcept {
    return it -= k;
  }
  friend difference_type operator-(const indexed_iterator& a, const indexed_iterator& b) noexcept {
    return a.m_i - b.m_i;
  }
  friend bool operator==(const indexed_iterator& a, const indexed_iterator& b) noexcept {
    return a.m_i == b.m_i;
  }
  friend auto operator<=>(const indexed_iterator& a, const indexed_iterator& b) noexcept {
    return a.m_i <=> b.m_i;
  }

 private:
  const At* m_at = nullptr;
  difference_type m_i = 0;
};

/// The view itself. It refers to the accessor, which must outlive it (both live in the frame of
/// the task that runs the algorithm).
template <typename At>
class indexed_view : public std::ranges::view_interface<indexed_view<At>> {
 public:
  indexed_view(const At* at, std::size_t n) noexcept : m_at(at), m_n(n) {}

  indexed_iterator<At> begin() const noexcept { return {m_at, 0}; }
  indexed_iterator<At> end() const noexcept { return {m_at, static_cast<std::ptrdiff_t>(m_n)}; }
  std::size_t size() const noexcept { return m_n; }

 private:
  const At* m_at;
  std::size_t m_n;
};

}  // namespace tine::detail

#endif  // TINE_ALGORITHMS_DETAIL_INDEXED_VIEW_HPP
