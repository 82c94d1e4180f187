#ifndef TINE_SCHEDULERS_ENV_OBSERVER_HPP
#define TINE_SCHEDULERS_ENV_OBSERVER_HPP

/// \file env_observer.hpp
/// Observability switched on from the environment, without recompiling: a busy_pool or lazy_pool
/// built without an observer reads, once in its constructor,
///
/// - `TINE_TRACE=path.json`: record a trace (trace_observer) and write it to `path.json` when
///   the pool is destroyed; the second pool of the process writes `path.1.json`, the third
///   `path.2.json`, and so on (the suffix goes before a final `.json`). `TINE_TRACE_EVENTS=n`
///   sets the events kept per worker (default 65536; later events are counted as dropped);
/// - `TINE_STATS=1` (any value but empty or `0`): count and time the workers (stats_observer)
///   and print the table to stderr when the pool is destroyed.
///
/// When neither is set the pool holds a null pointer: the cost is the environment lookups in the
/// constructor, and a test of that pointer at each event between pieces of work, never per task.
/// The observer is compiled into tine's library (env_observer.cpp), not into the program's
/// translation units: the pools' code there stays as it was. See docs/observability.md.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <memory>
#include <string>

#include <tine/schedulers/pool_observer.hpp>

namespace tine::detail {

/// The file the `index`-th traced pool of the process writes (0: `path` itself).
std::string numbered_trace_path(const std::string& path, std::size_t index);

/// The observer a pool without one builds when TINE_TRACE or TINE_STATS is set: a trace, the
/// statistics or both, written out when it is destroyed (which the pool does after joining its
/// workers). Its hooks are calls into tine's library.
class env_observer {
 public:
  struct deleter {
    void operator()(env_observer* o) const noexcept;
  };
  using pointer = std::unique_ptr<env_observer, deleter>;

  /// Null when neither variable is set. Ends the program with a message if TINE_TRACE_EVENTS is
  /// set to anything but a number of at least 2.
  static pointer from_environment(const char* pool_name);

  env_observer(const env_observer&) = delete;
  env_observer& operator=(const env_observer&) = delete;

  /// Where the trace goes (empty: no trace).
  const std::string& trace_path() const noexcept;

  // ---- pool_observer hooks: each goes to the trace and the statistics that were asked for ----
  void attach(std::size_t n);
  void on_worker_start(std::size_t w) noexcept;
  void on_worker_stop(std::size_t w) noexcept;
  void on_steal_attempt(std::size_t w, std::size_t v) noexcept;
  void on_steal(std::size_t w, std::size_t v) noexcept;
  void on_submission(std::size_t w) noexcept;
  void on_work_done(std::size_t w) noexcept;
  void on_sleep(std::size_t w) noexcept;
  void on_wake(std::size_t w) noexcept;
  void on_join_suspend(std::size_t w) noexcept;
  void on_join_resume(std::size_t w) noexcept;
  void on_stacklet_alloc(std::size_t w, std::size_t bytes) noexcept;
  void on_stacklet_free(std::size_t w, std::size_t bytes) noexcept;

 private:
  struct state;
  explicit env_observer(std::unique_ptr<state> s) noexcept;
  ~env_observer();

  std::unique_ptr<state> m;
};

static_assert(pool_observer<env_observer>);

}  // namespace tine::detail

#endif  // TINE_SCHEDULERS_ENV_OBSERVER_HPP
