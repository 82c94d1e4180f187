// tine's backend of the standard's parallel scheduler (parallel_scheduler_backend.hpp), and the
// replacement that makes it what `stdexec::get_parallel_scheduler()` returns.
//
// How stdexec lets a program replace the backend: its headers declare
// `stdexec::parallel_scheduler_replacement::query_parallel_scheduler_backend()` as a weak
// function and define it only in a program that defines STDEXEC_PARALLEL_SCHEDULER_HEADER_ONLY
// (its own default pool, inline in every unit). This file defines it: a program linking it (the
// target is alwayslink: nothing else refers to this unit) gets tine. It also defines stdexec's
// run-time switch, `set_parallel_scheduler_backend(factory)`, which stdexec declares for every
// program but defines only with its default.
#include <tine/execution/parallel_scheduler_backend.hpp>

#include <charconv>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include <tine/algorithms/extension.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/application/spawn.hpp>
#include <tine/core/cancelled.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/stop.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/task.hpp>
#include <tine/execution/detail/root_completion.hpp>

namespace tine::execution {
namespace {

namespace pr = parallel_replacement;

bool stop_requested(const pr::receiver_proxy& r) noexcept {
  const auto token = r.template try_query<stdexec::inplace_stop_token>(stdexec::get_stop_token);
  return token.has_value() && token->stop_requested();
}

/// Builds a T (which has a `bool on_heap`) in the frontend's `storage` when it fits there,
/// aligned, else on the heap. Throws what `new` throws.
template <typename T, typename... A>
T* make_in(std::span<std::byte> storage, A&&... a) {
  void* place = storage.data();
  std::size_t space = storage.size();
  if (place != nullptr && std::align(alignof(T), sizeof(T), place, space) != nullptr) {
    return ::new (place) T(std::forward<A>(a)...);
  }
  T* t = new T(std::forward<A>(a)...);
  t->on_heap = true;
  return t;
}

/// Ends what make_in built. Called before completing the frontend: the storage belongs to the
/// frontend's operation, which a completion may destroy.
template <typename T>
void release(T* t) noexcept {
  if (t->on_heap) {
    delete t;
  } else {
    std::destroy_at(t);
  }
}

/// `schedule`'s operation: the submission the pool queues.
struct schedule_node : submit_node {
  pr::receiver_proxy* proxy;
  bool on_heap = false;

  explicit schedule_node(pr::receiver_proxy& r) noexcept : proxy(&r) {
    run = &arrive;
    // Work scheduled from one of the pool's own workers is independent of the task there: to
    // the queue every worker takes from, not kept behind that task on its worker.
    starts_root = true;
  }

  static void arrive(submit_node* node) {
    auto* self = static_cast<schedule_node*>(node);
    pr::receiver_proxy& r = *self->proxy;
    release(self);
    if (stop_requested(r)) {
      r.set_stopped();
    } else {
      r.set_value();
    }
  }
};

/// `schedule_bulk_*`'s operation: one spawned root runs the loop; root_completion (shared with
/// tine's own bulk) forwards the frontend's stop to the root and completes once it has ended.
class bulk_operation {
  struct env {
    stdexec::inplace_stop_token token;
    stdexec::inplace_stop_token query(stdexec::get_stop_token_t) const noexcept { return token; }
  };

  /// root_completion's receiver: completes the frontend, after releasing this operation.
  struct receiver {
    using receiver_concept = stdexec::receiver_t;
    bulk_operation* op;

    void set_value() && noexcept { release(op)->set_value(); }
    void set_error(std::exception_ptr e) && noexcept { release(op)->set_error(std::move(e)); }
    void set_stopped() && noexcept { release(op)->set_stopped(); }
    env get_env() const noexcept { return {op->m_token}; }

   private:
    static pr::bulk_item_receiver_proxy* release(bulk_operation* op) noexcept {
      pr::bulk_item_receiver_proxy* proxy = op->m_proxy;
      execution::release(op);
      return proxy;
    }
  };

  struct send_value {
    void operator()(receiver& r) const noexcept { stdexec::set_value(std::move(r)); }
  };

  /// One piece of the loop, `[lo, hi)`; skipped once the frontend's stop was requested.
  struct piece {
    const bulk_operation* op;
    void operator()(std::size_t lo, std::size_t hi) const noexcept {
      // Seen here as well as through root_completion's link: the link exists only once the
      // root is spawned, and a short loop may otherwise run to its end before it does.
      if (op->m_token.stop_requested()) {
        tine::request_stop();  // the root's forks not yet started no longer start
        return;
      }
      if (op->m_chunked) {
        op->m_proxy->execute(lo, hi);
      } else {
        for (std::size_t i = lo; i < hi; ++i) {
          op->m_proxy->execute(i, i + 1);
        }
      }
    }
  };

  static tine::task<void> loop(const bulk_operation* op) {
    const piece body{op};
    const std::size_t grain =
        tine::detail::leaf_size(op->m_count, {}, tine::detail::workers_here());
    co_await tine::call(tine::detail::split_for<piece>, &body, std::size_t{0}, op->m_count, grain);
    co_await tine::join();
    if (op->m_token.stop_requested()) {
      // A piece may have been skipped: the frontend gets set_stopped, never a value for a loop
      // that did not cover its range.
      throw tine::cancelled();
    }
  }

 public:
  bool on_heap = false;

  bulk_operation(bool chunked, std::size_t count, pr::bulk_item_receiver_proxy& r) noexcept
      : m_proxy(&r),
        m_count(count),
        m_chunked(chunked),
        m_token(r.template try_query<stdexec::inplace_stop_token>(stdexec::get_stop_token)
                    .value_or(stdexec::inplace_stop_token{})),
        m_receiver{this},
        m_completion(m_receiver, send_value{}) {}
  bulk_operation(bulk_operation&&) = delete;

  /// Starts the loop on `pool`; may complete (and release this) before returning.
  void start(tine::lazy_pool<>& pool) noexcept {
    if (m_count == 0) {
      stdexec::set_value(std::move(m_receiver));
      return;
    }
    if (m_token.stop_requested()) {
      stdexec::set_stopped(std::move(m_receiver));
      return;
    }
    std::exception_ptr error;
    try {
      m_completion.watch(tine::spawn(pool, &loop, static_cast<const bulk_operation*>(this)));
      return;
    } catch (...) {  // nothing was spawned: no memory for the root
      error = std::current_exception();
    }
    stdexec::set_error(std::move(m_receiver), std::move(error));
  }

 private:
  pr::bulk_item_receiver_proxy* m_proxy;
  std::size_t m_count;
  bool m_chunked;
  stdexec::inplace_stop_token m_token;
  receiver m_receiver;
  detail::root_completion<void, receiver, send_value> m_completion;
};

// What the frontend lends, unless a program changes stdexec's macros: the operations fit, and
// neither a schedule nor a bulk allocates anything but the loop's root.
static_assert(sizeof(schedule_node) <= STDEXEC_PARALLEL_SCHEDULER_SCHEDULE_OP_SIZE &&
              alignof(schedule_node) <= STDEXEC_PARALLEL_SCHEDULER_SCHEDULE_OP_ALIGN);
static_assert(sizeof(bulk_operation) <= STDEXEC_PARALLEL_SCHEDULER_BULK_SCHEDULE_OP_SIZE &&
              alignof(bulk_operation) <= STDEXEC_PARALLEL_SCHEDULER_BULK_SCHEDULE_OP_ALIGN);

}  // namespace

pool_backend::pool_backend(std::size_t workers) : m_pool(workers) {}

pool_backend::~pool_backend() = default;

void pool_backend::schedule(pr::receiver_proxy& r, std::span<std::byte> storage) noexcept {
  schedule_node* node = nullptr;
  try {
    node = make_in<schedule_node>(storage, r);
  } catch (...) {
    r.set_error(std::current_exception());
    return;
  }
  m_pool.schedule(node);
}

void pool_backend::schedule_bulk_chunked(std::size_t count, pr::bulk_item_receiver_proxy& r,
                                         std::span<std::byte> storage) noexcept {
  schedule_bulk(true, count, r, storage);
}

void pool_backend::schedule_bulk_unchunked(std::size_t count, pr::bulk_item_receiver_proxy& r,
                                           std::span<std::byte> storage) noexcept {
  schedule_bulk(false, count, r, storage);
}

void pool_backend::schedule_bulk(bool chunked, std::size_t count, pr::bulk_item_receiver_proxy& r,
                                 std::span<std::byte> storage) noexcept {
  bulk_operation* op = nullptr;
  try {
    op = make_in<bulk_operation>(storage, chunked, count, r);
  } catch (...) {
    r.set_error(std::current_exception());
    return;
  }
  op->start(m_pool);
}

std::size_t parallel_scheduler_workers() {
  const char* text = std::getenv("TINE_PARALLEL_SCHEDULER_WORKERS");
  if (text == nullptr) {
    const unsigned h = std::thread::hardware_concurrency();
    return h == 0 ? 1 : h;
  }
  const std::string s(text);
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || n == 0) {
    throw std::invalid_argument("TINE_PARALLEL_SCHEDULER_WORKERS=\"" + s +
                                "\": the parallel scheduler's worker count must be a positive "
                                "decimal number (or leave the variable unset for one worker per "
                                "hardware thread)");
  }
  return n;
}

std::shared_ptr<pr::parallel_scheduler_backend> shared_pool_backend() {
  static const std::shared_ptr<pool_backend> backend =
      std::make_shared<pool_backend>(parallel_scheduler_workers());
  return backend;
}

}  // namespace tine::execution

namespace {

using backend_ptr =
    std::shared_ptr<stdexec::parallel_scheduler_replacement::parallel_scheduler_backend>;
using backend_factory = backend_ptr (*)();

/// The installed factory and the instance it made (made on first use).
struct installed_backend {
  std::mutex mutex;  // guards both members
  backend_factory factory = &tine::execution::shared_pool_backend;
  backend_ptr instance;
};

installed_backend& installed() {
  static installed_backend b;
  return b;
}

}  // namespace

namespace stdexec::parallel_scheduler_replacement {

std::shared_ptr<parallel_scheduler_backend> query_parallel_scheduler_backend() {
  installed_backend& b = installed();
  backend_factory factory = nullptr;
  {
    std::lock_guard lock(b.mutex);
    if (b.instance) {
      return b.instance;
    }
    factory = b.factory;
  }
  // Made outside the lock, so a factory may itself ask for the scheduler; of two first calls
  // racing, the first to store wins and the other's instance is dropped here.
  backend_ptr made = factory();
  std::lock_guard lock(b.mutex);
  if (!b.instance) {
    b.instance = std::move(made);
  }
  return b.instance;
}

// stdexec declares it deprecated (a run-time switch is not in the paper); defined here so a
// program linking tine's backend can still use it.
backend_factory set_parallel_scheduler_backend(backend_factory new_factory) {
  if (new_factory == nullptr) {
    throw std::invalid_argument(
        "stdexec::parallel_scheduler_replacement::set_parallel_scheduler_backend: the factory "
        "is null; pass a function returning the backend (tine::execution::shared_pool_backend "
        "for tine's)");
  }
  backend_ptr fresh = new_factory();  // may throw: nothing is changed then
  installed_backend& b = installed();
  backend_factory old = nullptr;
  {
    std::lock_guard lock(b.mutex);
    old = std::exchange(b.factory, new_factory);
    std::swap(b.instance, fresh);
  }
  return old;  // `fresh` now holds the old instance: released here, outside the lock
}

}  // namespace stdexec::parallel_scheduler_replacement
