#ifndef TINE_DISTRIBUTED_GLOBAL_VECTOR_HPP
#define TINE_DISTRIBUTED_GLOBAL_VECTOR_HPP

/// \file global_vector.hpp
/// Data across ranks: `tine::mpi::global_vector<T>`, a vector whose elements are spread over the
/// ranks of an `mpi_pool` in equal contiguous blocks; `global_span<T>`, a view of a range of it
/// that tasks pass around (and that moves with a stolen frame to any rank); and
/// `tine::mpi::checkout`, which gives a task the elements of a span as ordinary memory until
/// the view it returns ends (its *checkin*):
///
/// ```
/// tine::task<double> sum_range(tine::mpi::global_span<const double> s) {
///   if (s.size() <= 4096) {
///     auto local = co_await tine::mpi::checkout(s);  // read-only: a pointer, or a copy
///     co_return std::accumulate(local.begin(), local.end(), 0.0);
///   }
///   double a = 0;
///   double b = 0;
///   auto [l, r] = s.split(s.size() / 2);
///   co_await tine::fork(&a, sum_range, l);
///   co_await tine::call(&b, sum_range, r);
///   co_await tine::join();
///   co_return a + b;
/// }
/// ```
/// (tests/distributed/global_vector_test.cpp runs it.)
///
/// The rules (docs/distributed.md, "Global memory"):
/// - The ranks of one machine (as the pool's topology draws machines: TINE_MPI_RANKS_PER_MACHINE
///   can split one) hold their blocks in shared memory and map each other's. A checkout of
///   elements all in one block mapped on the task's rank, its own or another's of its machine,
///   is a pointer to them, copying nothing (`global_span::in_place` says so). Otherwise the
///   elements are copied into a buffer from the ranks that hold them (`access::read`,
///   `access::read_write`; small reads of other machines' elements through this process's block
///   cache, block_cache.hpp), and written back where they are held at the checkin
///   (`access::write`, `access::read_write`), which returns once the writes are complete.
/// - So a data-race-free program (no two strands that may run at once write the same element,
///   or one writes what the other reads) sees what it would on one machine: every write is in
///   place when its strand checks in, before anything that follows it in the fork-join order
///   (its parent after the join, a child forked later) can check out, and the cache never serves
///   such a strand an older copy.
/// - A checkout is valid until its view ends; do not keep one across a fork, call, join or other
///   `co_await` (a checked build stops the program when a task awaits a fork, call, join or
///   resume_on holding one). Elements are trivially copyable.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <tine/core/held_views.hpp>
#include <tine/distributed/global_traffic.hpp>
#include <tine/distributed/memory/global_store.hpp>
#include <tine/distributed/mpi_pool.hpp>

namespace tine::mpi {

/// How a checkout uses the elements: `read` (the default for a span of `const T`), `write`
/// (every element is written back at the checkin: the view starts zeroed where the elements are
/// copied, and as they are where they are this rank's), or `read_write` (the default otherwise).
namespace access {
struct read_t {};
struct write_t {};
struct read_write_t {};
inline constexpr read_t read{};
inline constexpr write_t write{};
inline constexpr read_write_t read_write{};
}  // namespace access

template <typename T>
class global_span;

namespace detail {
template <typename T, typename Mode>
struct checkout_awaiter;
}  // namespace detail

/// A view of elements [first, first + size) of a global vector: three integers, the same on
/// every rank, cheap to copy into tasks. `global_span<const T>` may only be read.
template <typename T>
class global_span {
  static_assert(std::is_trivially_copyable_v<T>,
                "tine::mpi::global_span: elements must be trivially copyable, since they are "
                "copied between ranks as bytes");

 public:
  using element_type = T;
  /// tine's algorithms take a global span as their input (global_algorithms.hpp).
  using tine_algorithm_input = void;

  global_span() = default;

  /// A span of `const T` from one of `T`.
  template <typename U>
    requires(std::is_const_v<T> && std::is_same_v<std::remove_const_t<T>, U>)
  global_span(const global_span<U>& other) noexcept  // NOLINT(google-explicit-constructor)
      : global_span(other.store_id(), other.offset(), other.size()) {}

  std::uint64_t size() const noexcept { return m_size; }
  bool empty() const noexcept { return m_size == 0; }

  /// Where the span begins in its vector.
  std::uint64_t offset() const noexcept { return m_first; }

  /// The `count` elements from `at`. Throws std::out_of_range past the span's end.
  global_span subspan(std::uint64_t at, std::uint64_t count) const {
    if (at > m_size || count > m_size - at) {
      throw std::out_of_range("tine::mpi::global_span::subspan: elements [" + std::to_string(at) +
                              ", " + std::to_string(at) + " + " + std::to_string(count) +
                              ") of a span of " + std::to_string(m_size));
    }
    return global_span(m_store, m_first + at, count);
  }

  /// The first `at` elements and the rest. Throws std::out_of_range when `at` > size().
  std::pair<global_span, global_span> split(std::uint64_t at) const {
    global_span left = subspan(0, at);
    return {left, subspan(at, m_size - at)};
  }

  /// Whether a checkout of these elements on this rank uses them in place rather than copying:
  /// when all of them are in this rank's block or in that of one other rank of its machine
  /// (whose blocks are mapped here; MPI ranks sharing memory, TINE_MPI_RANKS_PER_MACHINE can
  /// split them). False for an empty span. Throws std::logic_error when the vector is gone.
  bool in_place() const { return detail::global_store::find(m_store).maps(m_first, m_size); }

  /// The id of the vector's store (internal; the same on every rank).
  std::uint32_t store_id() const noexcept { return m_store; }

 private:
  template <typename U>
  friend class global_vector;
  template <typename U>
  friend class global_span;

  global_span(std::uint32_t store, std::uint64_t first, std::uint64_t size) noexcept
      : m_store(store), m_first(first), m_size(size) {}

  std::uint32_t m_store = 0;
  std::uint64_t m_first = 0;
  std::uint64_t m_size = 0;
};

/// Elements of a global span checked out by a task, as contiguous memory, until this view ends
/// (its checkin: written back where they are held, for the write modes). Move-only.
template <typename T, typename Mode>
class checked_out {
 public:
  using value_type = std::remove_const_t<T>;

  checked_out(checked_out&& other) noexcept
      : m_store(std::exchange(other.m_store, nullptr)),
        m_first(other.m_first),
        m_size(other.m_size),
        m_data(other.m_data),
        m_copy(std::move(other.m_copy)) {}
  checked_out& operator=(checked_out&&) = delete;
  checked_out(const checked_out&) = delete;

  ~checked_out() {
    if (m_store == nullptr) {
      return;
    }
    if constexpr (!std::is_same_v<Mode, access::read_t>) {
      try {
        if (m_copy) {
          m_store->store(reinterpret_cast<const std::byte*>(m_data), m_first, m_size);
        } else if (m_size != 0) {
          m_store->publish_local();
        }
      } catch (...) {
        tine::detail::fatal("tine::mpi::checkout: a checkin could not write its elements back");
      }
    }
    m_store->checked_in();
    tine::detail::count_held_view(-1);
  }

  T* data() const noexcept { return m_data; }
  std::size_t size() const noexcept { return static_cast<std::size_t>(m_size); }
  T* begin() const noexcept { return m_data; }
  T* end() const noexcept { return m_data + m_size; }
  T& operator[](std::size_t i) const noexcept { return m_data[i]; }

  /// Whether the elements were copied (not all in one block mapped here, global_span::in_place,
  /// or where MPI's window is not aligned for T) rather than used in place.
  bool copied() const noexcept { return m_copy != nullptr; }

 private:
  friend struct detail::checkout_awaiter<T, Mode>;

  checked_out(detail::global_store& store, std::uint64_t first, std::uint64_t size)
      : m_first(first), m_size(size) {
    std::byte* here = store.local(first, size);
    // MPI chooses the window's alignment: elements it does not align for T are copied too.
    if (here != nullptr && reinterpret_cast<std::uintptr_t>(here) % alignof(value_type) == 0) {
      m_data = reinterpret_cast<T*>(here);
    } else if (size != 0) {
      // Raw storage, not `new value_type[]`: the elements need not be default-constructible,
      // and the copy or the zeroing below makes them (trivially copyable types begin their
      // lifetime so).
      const std::size_t bytes = sizeof(value_type) * static_cast<std::size_t>(size);
      m_copy.reset(
          static_cast<value_type*>(::operator new(bytes, std::align_val_t(alignof(value_type)))));
      m_data = m_copy.get();
      if constexpr (std::is_same_v<Mode, access::write_t>) {
        std::memset(static_cast<void*>(m_copy.get()), 0, bytes);
      } else {
        store.fetch(reinterpret_cast<std::byte*>(m_copy.get()), first, size);
      }
    }
    store.checked_out(m_copy != nullptr);
    tine::detail::count_held_view(1);
    m_store = &store;
  }

  detail::global_store* m_store = nullptr;
  std::uint64_t m_first = 0;
  std::uint64_t m_size = 0;
  /// Frees the storage of a copy (its elements are trivially destructible).
  struct free_copy {
    void operator()(value_type* p) const noexcept {
      ::operator delete(static_cast<void*>(p), std::align_val_t(alignof(value_type)));
    }
  };

  T* m_data = nullptr;
  std::unique_ptr<value_type, free_copy> m_copy;  ///< the elements, when copied
};

namespace detail {
/// The awaiter of a checkout: the task goes on at once with the view.
template <typename T, typename Mode>
struct checkout_awaiter {
  global_span<T> span;
  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  checked_out<T, Mode> await_resume() const {
    global_store& store = global_store::find(span.store_id());
    return checked_out<T, Mode>(store, span.offset(), span.size());
  }
};
}  // namespace detail

/// What `checkout` returns: `co_await` it, inside a task, for the view. (The task goes on at
/// once: the copy, if any, is made during the `co_await`.)
template <typename T, typename Mode>
class checkout_awaitable {
 public:
  using tine_request = void;  // a task may co_await it (core/request.hpp)

  explicit checkout_awaitable(global_span<T> span) noexcept : m_span(span) {}

  detail::checkout_awaiter<T, Mode> bind(tine::detail::frame&) && noexcept { return {m_span}; }

 private:
  global_span<T> m_span;
};

/// Checks out the elements of `span` with the given access (`access::read`, `access::write`,
/// `access::read_write`); the write modes need a span of non-const elements.
template <typename T, typename Mode>
  requires(std::is_same_v<Mode, access::read_t> || std::is_same_v<Mode, access::write_t> ||
           std::is_same_v<Mode, access::read_write_t>)
auto checkout(global_span<T> span, Mode) noexcept {
  static_assert(std::is_same_v<Mode, access::read_t> || !std::is_const_v<T>,
                "tine::mpi::checkout: a span of const elements can only be checked out with "
                "access::read");
  using view_t = std::conditional_t<std::is_same_v<Mode, access::read_t>, const T, T>;
  return checkout_awaitable<view_t, Mode>(global_span<view_t>(span));
}

/// Checks out the elements of `span` for reading (`const T`) or reading and writing (`T`).
template <typename T>
auto checkout(global_span<T> span) noexcept {
  return checkout(span,
                  std::conditional_t<std::is_const_v<T>, access::read_t, access::read_write_t>{});
}

namespace detail {
/// A checkout made at once, by code that runs inside a task already (the leaves of the
/// algorithms on global spans are plain functions that their tasks call).
template <typename T, typename Mode>
auto checkout_here(global_span<T> span, Mode) {
  using view_t = std::conditional_t<std::is_same_v<Mode, access::read_t>, const T, T>;
  return checkout_awaiter<view_t, Mode>{global_span<view_t>(span)}.await_resume();
}
}  // namespace detail

/// A vector of `T` spread over the ranks of an `mpi_pool`: rank r holds elements [r * B,
/// (r + 1) * B), B = ceil(size / ranks). Made and destroyed collectively (every rank, outside
/// tasks, with the same size and `T`, in the same order as its other collective calls on the
/// pool; ranks whose calls, sizes or element sizes differ end the job with a message naming each
/// rank's call, collective_call.hpp); destroy it before the pool. Elements start zeroed.
template <typename T>
class global_vector {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "tine::mpi::global_vector: elements must be trivially copyable (and not const), "
                "since they are copied between ranks as bytes");

 public:
  template <victim_policy Policy>
  global_vector(mpi_pool<Policy>& pool, std::uint64_t size)
      : m_store(std::make_unique<detail::global_store>(detail::core_of(pool), size, sizeof(T))) {}

  global_vector(const global_vector&) = delete;
  global_vector& operator=(const global_vector&) = delete;

  /// tine's algorithms take a global vector as their input, as its span (global_algorithms.hpp).
  using tine_algorithm_input = void;

  std::uint64_t size() const noexcept { return m_store->size(); }

  /// The whole vector as a span.
  global_span<T> span() const noexcept { return global_span<T>(m_store->id(), 0, size()); }
  operator global_span<T>() const noexcept { return span(); }        // NOLINT
  operator global_span<const T>() const noexcept { return span(); }  // NOLINT

 private:
  std::unique_ptr<detail::global_store> m_store;
};

}  // namespace tine::mpi

#endif  // TINE_DISTRIBUTED_GLOBAL_VECTOR_HPP
