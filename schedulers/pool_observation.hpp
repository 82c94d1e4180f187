#ifndef TINE_SCHEDULERS_POOL_OBSERVATION_HPP
#define TINE_SCHEDULERS_POOL_OBSERVATION_HPP

/// \file pool_observation.hpp
/// How a pool's workers report to its observer: the link to a user's observer (the core's hook
/// table and the per-worker bindings), the observer TINE_TRACE / TINE_STATS ask for when the pool
/// has none, and the `watch` each worker loop calls per event.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <memory>

#include <tine/core/worker_hooks.hpp>
#include <tine/schedulers/env_observer.hpp>
#include <tine/schedulers/pool_observer.hpp>

namespace tine::detail {

/// How a pool reaches its observer: a pointer to it, and the hook table and per-worker bindings
/// through which the core reports its events (worker_hooks.hpp).
template <typename Observer>
class observer_link {
 public:
  explicit observer_link(Observer& o) noexcept : m_observer(&o) {}

  Observer& get() const noexcept { return *m_observer; }

  /// Makes the bindings of `n` workers (before any starts) and tells the observer.
  void attach(std::size_t n) {
    m_bindings = std::make_unique<hook_binding[]>(n);
    for (std::size_t i = 0; i < n; ++i) {
      m_bindings[i] = hook_binding{&table, m_observer, i};
    }
    m_observer->attach(n);
  }

  const hook_binding* binding(std::size_t i) const noexcept { return &m_bindings[i]; }

 private:
  static Observer& of(void* o) noexcept { return *static_cast<Observer*>(o); }
  static constexpr worker_hooks table = {
      [](void* o, std::size_t w) noexcept { of(o).on_join_suspend(w); },
      [](void* o, std::size_t w) noexcept { of(o).on_join_resume(w); },
      [](void* o, std::size_t w, std::size_t bytes) noexcept { of(o).on_stacklet_alloc(w, bytes); },
      [](void* o, std::size_t w, std::size_t bytes) noexcept { of(o).on_stacklet_free(w, bytes); },
  };

  Observer* m_observer;
  std::unique_ptr<hook_binding[]> m_bindings;
};

/// No observer: nothing to hold (and, [[no_unique_address]] in pool_base, no byte of the pool).
template <>
class observer_link<no_observer> {};

/// What a pool built without an observer holds for TINE_TRACE / TINE_STATS (env_observer.hpp):
/// null when neither is set. Destroyed after the workers are joined, which writes the output.
template <typename Observer>
struct env_observation {};

template <>
struct env_observation<no_observer> {
  env_observer::pointer observer;
  std::unique_ptr<observer_link<env_observer>> link;
};

/// How a worker loop reports its events: `watch(f)` calls `f(observer)`.
template <typename O>
struct watched {
  O* observer;
  template <typename F>
  TINE_ALWAYS_INLINE void operator()(F&& f) const noexcept {
    f(*observer);
  }
};

/// The watch of a pool without an observer: the environment's observer if TINE_TRACE or
/// TINE_STATS asked for one, else nothing. A test per event between pieces of work (steal
/// attempts, steals, submissions), never per task; the observer's code is in tine's library
/// (env_observer.cpp), so that none of it competes with the tasks' code for GCC's unit-wide
/// inlining budget (bench/journal/2026-11-23-observer-overhead.md).
struct env_watch {
  env_observer* observer;
  template <typename F>
  TINE_ALWAYS_INLINE void operator()(F&& f) const noexcept {
    if (TINE_UNLIKELY(observer != nullptr)) {
      f(*observer);
    }
  }
};

}  // namespace tine::detail

#endif  // TINE_SCHEDULERS_POOL_OBSERVATION_HPP
