#ifndef TINE_REDUCERS_REDUCER_HPP
#define TINE_REDUCERS_REDUCER_HPP

/// \file reducer.hpp
/// `tine::reducer<Monoid>`: a variable that parallel strands update at once, each through its own
/// view, with the views combined in the program's serial order (Cilk's reducer hyperobjects).
///
/// ```
/// tine::reducer<tine::sum<long>> total;             // views are made on steals only
/// tine::task<void> walk(const node* n, tine::reducer<tine::sum<long>>& total) {
///   total.view() += n->weight;                      // this strand's view: no lock, no atomic
///   for (const node* c : n->children) co_await tine::fork(walk, c, total);
///   co_await tine::join();
/// }
/// tine::sync_wait(pool, walk, root, total);
/// long sum = total.get();                           // exactly the serial answer
/// ```
///
/// A *monoid* is a type with `value_type`, a static `identity()` and a static
/// `reduce(value_type& left, value_type& right)` that sets `left` to left ⊕ right, for an
/// associative ⊕ with identity() as its neutral element. ⊕ need not be commutative: views are
/// combined left to right, as the serial program would have applied the updates. monoids.hpp
/// has sum, product, min, max and append.
///
/// Semantics (see docs/reducers.md):
/// - Outside tasks, view() and get() are the reducer's own value.
/// - In a task, view() is the calling strand's view. A fork or call that is not stolen makes no
///   view (its child updates the same one); a strand that began with a steal makes an identity
///   view on its first view(). At a join, the views of the scope's strands are merged in serial
///   order; a root task's are folded into the reducer's own value at its end, before sync_wait
///   returns (or the root's future is ready). The result is the serial program's, on every
///   scheduler and worker count.
/// - Several roots may update one reducer at the same time (tine::spawn, sync_wait from several
///   threads): each root's updates are combined in its own serial order, and at its end folded
///   into the reducer's own value under a lock the reducer holds, in the order the roots end.
///   Roots have no serial order between them: with a monoid that does not commute, each root's
///   contribution appears whole and in its order, the roots in an order that depends on timing.
/// - get() is the reducer's own value with the calling strand's view folded in. Call it where no
///   strand or root that updates the reducer runs in parallel: after the join of every such
///   strand, after sync_wait, after the futures of such roots are ready. It throws
///   std::logic_error when it finds views of other strands or roots (it cannot see one that has
///   not made its view yet: that is a race, as in Cilk). view() outside tasks throws the same
///   way while roots hold views: the reducer's own value is theirs to fold into until they end.
/// - Strands that throw: their views are kept and merged like any other (nothing is undone);
///   the value then reflects every update made, in serial order. A `reduce` that throws during
///   a merge has its exception rethrown at that join (or by sync_wait, at a root's end).
/// - On a worker whose frames may move to another process (tine::mpi_pool on more than one
///   rank), view() throws std::logic_error: a view lives in one process's heap.
///
/// Cost: view() that finds the strand's view reads the worker, its strand record and one entry
/// of the record's table (bench/journal/2026-11-26-reducers-dprng.md gives the
/// instruction count); the first view() of a
/// strand allocates the view (aligned for `value_type`) and counts it (one atomic increment).
/// A view lives until the join that merges it. A root's end takes the lock of each reducer it
/// updated, once. Programs without reducers pay nothing on forks and joins that are not stolen.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <cstddef>
#include <mutex>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <tine/core/worker_runtime.hpp>
#include <tine/reducers/reducer_base.hpp>
#include <tine/reducers/views_layer.hpp>

namespace tine {
namespace detail {

struct no_value_type {};

template <typename M>
struct monoid_value {
  using type = no_value_type;
};
template <typename M>
  requires requires { typename M::value_type; }
struct monoid_value<M> {
  using type = typename M::value_type;
};

template <typename M>
consteval bool check_monoid() {
  using V = typename monoid_value<M>::type;
  if constexpr (std::is_same_v<V, no_value_type>) {
    static_assert(std::is_same_v<V, void>,
                  "tine::reducer<Monoid>: Monoid must name the type of its views: add "
                  "`using value_type = ...;` to it");
    return false;
  } else if constexpr (!std::is_object_v<V> || std::is_const_v<V> || std::is_array_v<V>) {
    static_assert(std::is_same_v<V, void>,
                  "tine::reducer<Monoid>: Monoid::value_type must be a non-const object type "
                  "that is not an array (wrap an array in a struct or use std::array)");
    return false;
  } else if constexpr (!requires {
                         { M::identity() } -> std::convertible_to<V>;
                       }) {
    static_assert(std::is_same_v<V, void>,
                  "tine::reducer<Monoid>: Monoid must have `static value_type identity()`, "
                  "returning the neutral element of its operation");
    return false;
  } else if constexpr (!requires(V& left, V& right) { M::reduce(left, right); }) {
    static_assert(std::is_same_v<V, void>,
                  "tine::reducer<Monoid>: Monoid must have `static void reduce(value_type& left, "
                  "value_type& right)`, which sets left to left (+) right, left being earlier in "
                  "serial order");
    return false;
  } else if constexpr (
      requires(V& right) { M::reduce(std::declval<V>(), right); } ||
      !requires(V& left, V& right) {
        { M::reduce(left, right) } -> std::same_as<void>;
      }) {
    // A reduce that takes `left` by value or const reference, or returns the combination, would
    // leave the left view unchanged: every merge would silently lose the right one.
    static_assert(std::is_same_v<V, void>,
                  "tine::reducer<Monoid>: Monoid::reduce must update its left argument in place: "
                  "take it as `value_type& left` (not by value or const reference) and return "
                  "void");
    return false;
  } else {
    return true;
  }
}

}  // namespace detail

/// A monoid: `value_type`, `static value_type identity()` and
/// `static void reduce(value_type& left, value_type& right)` (left := left ⊕ right).
template <typename M>
concept monoid = requires { typename M::value_type; } &&
                 requires(typename M::value_type& left, typename M::value_type& right) {
                   { M::identity() } -> std::convertible_to<typename M::value_type>;
                   M::reduce(left, right);
                 };

/// A reducer over `Monoid`; see the file comment. Not copyable or movable: strands find their
/// views by the reducer's address. Pass it to tasks by reference.
template <typename Monoid>
class reducer final : private detail::reducer_base {
  static constexpr bool valid = detail::check_monoid<Monoid>();

 public:
  using monoid_type = Monoid;
  using value_type = typename detail::monoid_value<Monoid>::type;

  /// Starts at the identity.
  reducer() : m_value(identity()) {}

  /// Starts at `initial`, which comes before every update in serial order.
  explicit reducer(value_type initial) : m_value(std::move(initial)) {}

  reducer(const reducer&) = delete;
  reducer& operator=(const reducer&) = delete;

  /// Rejects copies and moves with a message (a task parameter taken by value, say).
  template <typename Other>
    requires std::same_as<std::remove_cvref_t<Other>, reducer>
  reducer(Other&&) {  // NOLINT: never instantiated without failing
    static_assert(!std::same_as<std::remove_cvref_t<Other>, reducer>,
                  "tine::reducer cannot be copied or moved: strands find their views by the "
                  "reducer's address. Pass it to tasks by reference (tine::reducer<M>&) or by "
                  "pointer");
  }

  /// Destroys the calling strand's view, if any. Every other strand that updated the reducer
  /// must have been joined, and every root that did must have ended: a reducer destroyed while
  /// other strands or roots still hold views of it ends the program with a message.
  ~reducer() {
    if (void* mine = take_own_view()) {
      destroy_view(mine);
      view_gone();
    }
    if (views() != 0) {
      detail::fatal(
          "tine::reducer destroyed while other strands still hold views of it: destroy a "
          "reducer only after the join of every strand that updates it and the end of every "
          "root that does (a root's views are folded into the reducer when it ends, before "
          "sync_wait returns or its future is ready)");
    }
  }

  /// The calling strand's view (outside tasks: the reducer's own value). Valid until the strand
  /// reaches its next co_await; ask again after one. Throws what the monoid's identity() throws,
  /// std::bad_alloc, or std::logic_error on a worker whose frames may leave the process, or
  /// outside tasks while roots hold views of the reducer (see get()).
  TINE_ALWAYS_INLINE value_type& view() {
    detail::worker_runtime* rt = detail::read_tls_runtime();
    if (TINE_LIKELY(rt != nullptr)) {
      if (detail::strand_views* s = rt->strands().current(); TINE_LIKELY(s != nullptr)) {
        if (void* v = s->table.find(this); TINE_LIKELY(v != nullptr)) {
          return *static_cast<value_type*>(v);
        }
      }
      return make_view(rt);
    }
    return own_value_outside_tasks();
  }

  /// The reducer's value: its own, with the calling strand's view folded in (and removed). Call
  /// it where no other strand or root that updates the reducer runs: after their join, after
  /// sync_wait, after the futures of such roots are ready. Throws std::logic_error when other
  /// strands or roots still hold views (it was called in parallel with them), and what the
  /// monoid's reduce throws. Takes the reducer's lock, so that a root ending now folds before
  /// or after the check and the fold here, never during them.
  value_type& get() {
    void* mine = find_own_view();
    const std::lock_guard<std::mutex> hold(fold_lock());
    if (views() != (mine != nullptr ? 1U : 0U)) {
      throw std::logic_error(
          "tine::reducer::get: other strands or roots still hold views of this reducer: get() "
          "ran in parallel with strands that update it; call it after their join, after "
          "sync_wait, or once the futures of the roots that update it are ready");
    }
    if (mine != nullptr) {
      take_own_view();
      struct release {  // the view goes whether or not the monoid's reduce throws
        reducer* self;
        void* view;
        ~release() {
          self->destroy_view(view);
          self->view_gone();
        }
      } done{this, mine};
      fold_view(mine);
    }
    return m_value;
  }

 private:
  static value_type& as_value(void* p) noexcept { return *static_cast<value_type*>(p); }

  /// The monoid's identity; for a monoid check_monoid rejected, any value, so that its message
  /// comes alone.
  static value_type identity() {
    if constexpr (valid) {
      return Monoid::identity();
    } else {
      return value_type();
    }
  }

  void reduce_views(void* left, void* right) const override {
    if constexpr (valid) {
      Monoid::reduce(as_value(left), as_value(right));
    }
  }

  void fold_view(void* view) override {
    if constexpr (valid) {
      Monoid::reduce(m_value, as_value(view));
    }
  }

  void destroy_view(void* view) const noexcept override {
    as_value(view).~value_type();
    ::operator delete(view, std::align_val_t{alignof(value_type)});
  }

  /// The calling strand's view, or null (outside tasks, or none made yet).
  void* find_own_view() const noexcept {
    detail::worker_runtime* rt = detail::read_tls_runtime();
    detail::strand_views* s = rt == nullptr ? nullptr : rt->strands().current();
    return s == nullptr ? nullptr : s->table.find(this);
  }

  /// Removes the calling strand's view from its table and returns it (null: none).
  void* take_own_view() noexcept {
    detail::worker_runtime* rt = detail::read_tls_runtime();
    detail::strand_views* s = rt == nullptr ? nullptr : rt->strands().current();
    return s == nullptr ? nullptr : s->table.remove(this);
  }

  /// view() outside tasks: the reducer's own value, unless roots hold views of it, which they
  /// fold into that value when they end.
  TINE_NOINLINE value_type& own_value_outside_tasks() {
    if (views() != 0) {
      throw std::logic_error(
          "tine::reducer::view: called outside tasks while roots that update this reducer "
          "hold views of it: the reducer's own value is theirs to fold into until they end; "
          "use it after sync_wait, or once their futures are ready");
    }
    return m_value;
  }

  /// The first view() of a strand: makes its identity view.
  TINE_NOINLINE value_type& make_view(detail::worker_runtime* rt) {
    detail::strand_views* s = rt->strands().current();
    if (s == nullptr) {
      if (detail::views_allowed()) {
        throw std::logic_error(
            "tine::reducer::view: this process keeps no views: its first computation began "
            "during static initialisation, before tine's reducers were set up; start "
            "computations that use reducers from main");
      }
      throw std::logic_error(
          "tine::reducer::view: this task runs where frames may move to another process "
          "(tine::mpi_pool on more than one rank); a view lives in one process's heap, so "
          "reducers are not supported there");
    }
    void* p = ::operator new(sizeof(value_type), std::align_val_t{alignof(value_type)});
    try {
      ::new (p) value_type(identity());
    } catch (...) {
      ::operator delete(p, std::align_val_t{alignof(value_type)});
      throw;
    }
    if (!s->table.insert(this, p)) {
      destroy_view(p);
      throw std::bad_alloc();
    }
    view_made();
    return as_value(p);
  }

  value_type m_value;
};

}  // namespace tine

#endif  // TINE_REDUCERS_REDUCER_HPP
