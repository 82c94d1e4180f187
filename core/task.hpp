#ifndef TINE_CORE_TASK_HPP
#define TINE_CORE_TASK_HPP

/// \file task.hpp
/// `tine::task<T>`: the return type of every tine coroutine, and its promise.
///
/// A coroutine returning `task<T>` is a task. Its frame is allocated on the calling worker's
/// segmented stack, not the heap. A task does nothing until it is started by `tine::fork`,
/// `tine::call` or `tine::sync_wait`; its result is written straight into the variable the caller
/// named. Inside a task, `co_await` accepts only tine's awaitables (fork, call, join, resume_on,
/// stack_alloc, futures), because they keep the worker's stack and deque consistent, and foreign
/// operations that a `tine::await_adapter` specialisation adapts (external_await.hpp).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <type_traits>
#include <utility>

#include <tine/core/external_await.hpp>
#include <tine/core/final.hpp>
#include <tine/core/frame.hpp>
#include <tine/core/request.hpp>
#include <tine/core/stacklet.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {

template <typename T = void>
class task;

namespace detail {

template <typename T>
inline constexpr bool dependent_false = false;

/// Whether an object of type T (a parameter, a result) can live in a task frame: frames start on
/// 64-byte boundaries. References and void take no room of their own.
template <typename T>
consteval bool frame_alignment_ok() {
  if constexpr (std::is_reference_v<T> || std::is_void_v<T>) {
    return true;
  } else {
    return alignof(T) <= stack_alignment;
  }
}
template <typename T>
inline constexpr bool fits_a_frame = frame_alignment_ok<T>();

/// Whether sizeof(T) fits the 32 bits the frame header keeps it in (void and references: yes).
template <typename T>
consteval bool result_size_fits() {
  if constexpr (std::is_reference_v<T> || std::is_void_v<T>) {
    return true;
  } else {
    // The header's 32-bit field's limit, which sizeof is compared with on purpose.
    // NOLINTNEXTLINE(bugprone-sizeof-expression)
    return sizeof(T) <= 0xffffffffU;
  }
}
template <typename T>
inline constexpr bool result_size_ok = result_size_fits<T>();

/// Result types class task refuses with a sentence (references, const, volatile): a coroutine
/// returning one gets refused_promise, which compiles any body, so that the sentence is the only
/// error.
template <typename T>
inline constexpr bool refused_result =
    std::is_reference_v<T> || std::is_const_v<T> || std::is_volatile_v<T>;

/// A frame freed while it was not the most recent allocation of the worker's stack: only a task
/// object a user held and destroyed unstarted can be (see task::~task).
[[noreturn]] TINE_NOINLINE [[gnu::cold]] inline void frame_freed_out_of_order() noexcept {
  fatal(
      "a tine::task that was never started was destroyed while something allocated after it "
      "still lives (task objects destroyed out of order); do not hold task objects: start them "
      "at once with tine::fork, tine::call or tine::sync_wait");
}

struct promise_base {
  frame frame_header;  // first: a promise's address is its frame header's (see handle_of)

  static void* operator new(std::size_t bytes) {
    // A ramp can be inlined into a coroutine that creates the task: read through the accessor.
    // On a thread that is not a worker this is a stack that cannot grow, whose slow path ends
    // the program with a message (stacklet.hpp: no_worker_stacklet).
    void* p = stack_push_frame(*read_tls_frame_stack(), bytes);
#if TINE_CHECKED
    set_last_frame_allocation(p);
#endif
    return p;
  }

#if TINE_CHECKED
  /// Checks the assumption behind freeing trivial frames by address: the coroutine handle's
  /// address is the start of the allocation (true for GCC and Clang).
  static inline thread_local void* last_frame_allocation = nullptr;
  // Accessed where tls_runtime is (in the ramp), hence through TINE_TLS_ACCESSOR functions.
  TINE_TLS_ACCESSOR static void set_last_frame_allocation(void* p) noexcept {
    last_frame_allocation = p;
  }
  TINE_TLS_ACCESSOR static void* get_last_frame_allocation() noexcept {
    return last_frame_allocation;
  }
#endif

  /// Frees a frame whose destructors have run (a task holding parameters with destructors, at
  /// its end; or a task object destroyed unstarted). The frame must be the most recent allocation
  /// of the worker's stack, which tine's own frees always are; checked in every build (a compare:
  /// the size is a constant here), since a task object a user held could be freed out of order,
  /// which would silently free everything allocated after it.
  static void operator delete(void* p, std::size_t bytes) noexcept {
    stacklet*& top = runtime().top();
    if (TINE_UNLIKELY(static_cast<std::byte*>(p) + round_to_stack_alignment(bytes) != top->sp)) {
      frame_freed_out_of_order();
    }
    stack_pop(top, p);
  }

  std::suspend_always initial_suspend() const noexcept { return {}; }

  void unhandled_exception() noexcept {
    // Stolen since the last fork-join scope opened: children may still be running, and they
    // may refer to locals that leaving the body has just destroyed.
    TINE_CHECK(!frame_header.in_scope || frame_header.steals == 0,
               "a task threw between a fork and its join while its children were running; their "
               "references to its locals dangle. Catch inside the scope, co_await tine::join(), "
               "then rethrow (see the tour's rules)");
    frame_header.stash_exception(std::current_exception());
  }

  /// Called by return_value / return_void: the body ends here.
  void check_joined() const noexcept {
    TINE_CHECK(!frame_header.in_scope,
               "a task returned between a fork and its join; co_await tine::join() before "
               "co_return (the children may refer to locals that returning destroys)");
  }

  // The awaitable is returned by value: GCC 12 copies an awaiter returned by reference. A
  // request awaited as an lvalue is bound as one where it says how (a named future refuses).
  template <request R>
  auto await_transform(R&& r) {
    if constexpr (std::is_lvalue_reference_v<R> && requires { r.bind(frame_header); }) {
      return r.bind(frame_header);
    } else {
      // R is not an lvalue reference here, so this is std::forward; the fork path keeps its code.
      return std::move(r).bind(frame_header);  // NOLINT(bugprone-move-forwarding-reference)
    }
  }

  /// A foreign operation made awaitable by a tine::await_adapter specialisation
  /// (external_await.hpp); tine's own requests come first.
  template <typename A>
    requires(!request<A> && adapted<A>)
  external_awaitable<std::remove_cvref_t<A>> await_transform(A&& a) {
    return external_awaitable<std::remove_cvref_t<A>>(frame_header, std::forward<A>(a));
  }

  template <typename A>
    requires(!request<A> && !adapted<A>)
  void await_transform(A&&) {
    static_assert(
        dependent_false<A>,
        "tine: inside a task you can only co_await tine::fork, tine::call, tine::join, "
        "tine::resume_on, tine::stack_alloc, tine::dprng::current(), a tine::future (as "
        "std::move(f)), tine::mpi::checkout, and a type for which tine::await_adapter is "
        "specialised (core/external_await.hpp); other awaitables could resume the task on a "
        "thread that is not a worker");
  }
};

template <typename T>
struct promise : promise_base {
  static constexpr std::uint32_t result_size = static_cast<std::uint32_t>(sizeof(T));

  promise() noexcept { this->frame_header.result_bytes = result_size; }

  /// Whether a discarded result of a forked or called child is written into the child's own
  /// `returned` bytes (discard_result), so that co_return writes without testing for a caller
  /// that discards: scalars, which have no assignment operator to run on the caller's object.
  static constexpr bool sinks_discarded =
      std::is_scalar_v<T> && sizeof(T) <= frame::returned_capacity;

  /// Where co_return writes (the frame header's `result`, typed). Null when the caller discards
  /// the value, unless discard_result() said where to write it.
  void set_result(T* where) noexcept { this->frame_header.result = where; }

  /// The caller of a child of kind fork or call discards its value: where co_return writes it
  /// (the child's own bytes; the arrival at a stolen parent's join sends no result then).
  void discard_result() noexcept {
    if constexpr (sinks_discarded) {
      this->frame_header.result = this->frame_header.returned;
    }
  }

  template <typename U>
    requires std::is_assignable_v<T&, U&&>
  void return_value(U&& value) noexcept(std::is_nothrow_assignable_v<T&, U&&>) {
    this->check_joined();
    if constexpr (sinks_discarded) {
      // Every task of this type has somewhere to write: the caller's object, a root's, or its
      // own bytes (discard_result). Assigned as into the caller's object, then copied.
      T v;
      v = std::forward<U>(value);
      void* where = this->frame_header.result;
      TINE_ASSERT(where != nullptr, "a task's result has nowhere to go");
      std::memcpy(where, &v, sizeof(T));
      std::memcpy(this->frame_header.returned, &v, sizeof(T));
    } else if (void* where = this->frame_header.result; where != nullptr) {
      *static_cast<T*>(where) = std::forward<U>(value);
      keep_returned(where);
    }
  }

 private:
  /// Keeps a copy of the bytes just written, for an arrival at a parent that moved to another
  /// process (frame::returned): one more store of the value for a small result, nothing for a
  /// larger one unless the worker's frames may leave the process.
  TINE_ALWAYS_INLINE void keep_returned(const void* where) noexcept {
    if constexpr (sizeof(T) <= frame::returned_capacity) {
      std::memcpy(this->frame_header.returned, where, sizeof(T));
    } else if (TINE_UNLIKELY(frames_may_leave_process())) {
      keep_returned_bytes(where, sizeof(T));
    }
  }
};

template <>
struct promise<void> : promise_base {
  static constexpr std::uint32_t result_size = 0;

  void return_void() const noexcept { this->check_joined(); }
};

/// The promise type of a task; `Trivial` when every parameter is trivially destructible, so the
/// frame can be freed without calling the coroutine's destroy function.
template <typename T, bool Trivial>
struct promise_of : promise<T> {
  static_assert(alignof(promise<T>) == alignof(frame),
                "tine: handle_of(frame*) assumes every promise has its frame header's alignment");

  promise_of() noexcept = default;

  /// A task with a `pedigree_pass` parameter (a parallel algorithm's leaf): the coroutine calls
  /// this constructor with its parameters' copies, and it marks the frame (frame.hpp). Other
  /// tasks fail the constraint and get the default constructor: they pay nothing.
  template <typename... P>
    requires(std::same_as<std::remove_cv_t<P>, pedigree_pass> || ...)
  explicit promise_of(P&... params) noexcept {
    (enter_pass(params), ...);
  }
  task<T> get_return_object() noexcept;
  final_awaitable<Trivial> final_suspend() const noexcept { return {}; }

 private:
  template <typename P>
  void enter_pass(P& param) noexcept {
    if constexpr (std::same_as<std::remove_cv_t<P>, pedigree_pass>) {
      param.enter(this->frame_header);
    }
  }
};

/// The promise of a coroutine whose result type class task refuses: it accepts any body and is
/// never run (the program does not compile).
template <typename T>
struct refused_promise {
  task<T> get_return_object() noexcept;
  std::suspend_always initial_suspend() const noexcept { return {}; }
  std::suspend_always final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept {}
  template <typename U>
  void return_value(U&&) noexcept {}
  template <typename A>
  std::suspend_never await_transform(A&&) noexcept {
    return {};
  }
};

/// Lets tine's awaitables take the promise out of a task.
struct task_access;

/// A task object that was never started frees its frame from the calling worker's stack. That is
/// only FILO if the worker still runs on that stack and nothing allocated since still lives. This
/// checks the first (a task held across a fork whose continuation was stolen, destroyed before
/// the join on the thief, is on another worker's stack); promise_base::operator delete checks the
/// second (two held tasks destroyed in the order they were created). Both in every build (cold
/// paths); a free out of order would corrupt the stack silently. A task held across a stolen fork
/// and destroyed after the join is freed correctly: the join gives the task its stack back.
inline void check_unstarted_free(const void* frame_start) noexcept {
  worker_runtime* rt = read_tls_runtime();
  const auto* p = static_cast<const std::byte*>(frame_start);
  if (rt == nullptr || p < rt->top()->base() || p >= rt->top()->sp) {
    fatal(
        "a tine::task that was never started was destroyed on another worker than the one that "
        "created it (it was held across a fork whose continuation was stolen); do not hold task "
        "objects: start them at once with tine::fork, tine::call or tine::sync_wait");
  }
}

}  // namespace detail

/// The return type of a tine task returning `T` (`void` by default). Move-only; users do not
/// normally hold one: they name the coroutine function in `fork`, `call` or `sync_wait`.
template <typename T>
class [[nodiscard(
    "a tine::task does nothing unless it is started with tine::fork, tine::call or "
    "tine::sync_wait")]] task {
  static_assert(!std::is_reference_v<T>,
                "tine::task<T&>: a task cannot return a reference, because its result is assigned "
                "to an object the caller names (fork(&r, ...), call(&r, ...), sync_wait's value); "
                "return a pointer or a std::reference_wrapper<T> instead");
  static_assert(!std::is_const_v<T> && !std::is_volatile_v<T>,
                "tine::task<const T>: a task's result type cannot be const or volatile, because "
                "the result is assigned to an object the caller names; return a plain T");

 public:
  using value_type = T;

  task(task&& other) noexcept : m_promise(std::exchange(other.m_promise, nullptr)) {}
  task& operator=(task&&) = delete;
  task(const task&) = delete;
  task& operator=(const task&) = delete;

  /// A task that was never started is destroyed with its frame, which must be the most recent
  /// allocation of the calling worker's stack (see detail::check_unstarted_free).
  // always_inline: it runs for every child (whose task object is empty by then), and GCC leaves
  // it out of line in a large translation unit, a call on the fork path for a null test.
  TINE_ALWAYS_INLINE ~task() {
    if (TINE_UNLIKELY(m_promise != nullptr)) {
      destroy_unstarted(m_promise);
    }
  }

 private:
  template <typename, bool>
  friend struct detail::promise_of;
  friend struct detail::task_access;

  explicit task(detail::promise<T>* p) noexcept : m_promise(p) {}

  TINE_NOINLINE static void destroy_unstarted(detail::promise<T>* p) noexcept {
    detail::check_unstarted_free(p);
    detail::handle_of(&p->frame_header).destroy();
  }

  detail::promise<T>* m_promise;
};

namespace detail {

template <typename T, bool Trivial>
task<T> promise_of<T, Trivial>::get_return_object() noexcept {
  TINE_ASSERT(std::coroutine_handle<promise_of>::from_promise(*this).address() ==
                  promise_base::get_last_frame_allocation(),
              "a coroutine frame must start at the address its allocation returned");
  TINE_ASSERT(handle_of(&this->frame_header).address() == promise_base::get_last_frame_allocation(),
              "handle_of(frame) must find the coroutine a promise belongs to");
  return task<T>(this);
}

struct task_access {
  template <typename T>
  static promise<T>* release(task<T>& t) noexcept {
    return std::exchange(t.m_promise, nullptr);
  }
  /// The same for a temporary task, which then ends empty with its full-expression.
  template <typename T>
  static promise<T>* release(task<T>&& t) noexcept {
    return std::exchange(t.m_promise, nullptr);
  }
};

template <typename X>
struct is_task : std::false_type {};
template <typename T>
struct is_task<task<T>> : std::true_type {};

}  // namespace detail

/// True for the result of a callable that is a tine task: `task<T>` for some T.
template <typename X>
concept task_type = detail::is_task<X>::value;

/// `fn(args...)` is a tine task.
template <typename F, typename... Args>
concept task_function = std::invocable<F, Args...> && task_type<std::invoke_result_t<F, Args...>>;

}  // namespace tine

/// Selects tine's promise for every coroutine returning tine::task<T>, and rejects rvalue
/// reference parameters: a forked child may outlive the temporary such a parameter refers to.
template <typename T, typename... Params>
struct std::coroutine_traits<tine::task<T>, Params...> {
  static_assert(!(std::is_rvalue_reference_v<Params> || ...),
                "tine: a task may not take a parameter by rvalue reference (T&&, including a "
                "forwarding reference bound to a temporary): a forked child can outlive the "
                "temporary it refers to. Take the parameter by value instead.");
  static_assert((tine::detail::fits_a_frame<Params> && ...),
                "tine: a task's parameters may be aligned to at most 64 bytes: task frames are "
                "placed on 64-byte boundaries. Pass a more aligned object by reference or "
                "pointer.");
  static_assert(tine::detail::fits_a_frame<T>,
                "tine: a task's result type may be aligned to at most 64 bytes: the variable "
                "that receives it lives in a task frame, placed on a 64-byte boundary.");
  static_assert(tine::detail::result_size_ok<T>,
                "tine: a task's result type may be at most 4 GiB - 1 bytes (its size is kept in "
                "32 bits); return a pointer to a larger object.");
  using promise_type = std::conditional_t<
      tine::detail::refused_result<T>, tine::detail::refused_promise<T>,
      tine::detail::promise_of<T, ((std::is_reference_v<Params> ||
                                    std::is_trivially_destructible_v<Params>)&&...)>>;
};

#endif  // TINE_CORE_TASK_HPP
